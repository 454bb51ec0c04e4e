#!/usr/bin/env python3
"""Ground every corpus game with demand (the default) and with `--no-demand`, and compare.

    python3 docs/bench/demand.py [--bin BINARY] [--games ../shared/games]
        [--timeout 30] [--jobs 1] [--out docs/bench/demand] [GAME ...]

For each game (all `*.kif` and `*.hrf` files under --games, or the GAMEs given), runs
`gdlground ground GAME -o /dev/null --stats=json` both ways, each killed after --timeout
seconds, and writes OUT/demand.tsv: the ground rules, atoms and milliseconds of each run
(empty when it did not ground, with the first error line or `timeout`) and whether the atoms
are R*. Prints, and writes to OUT/demand.md, the games where the two runs' rule counts differ
(by how much), the games where demand grounds more rules (the acceptance says none), and the
games only one of them grounds.
"""

import argparse
import concurrent.futures
import csv
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from operations import run, first_error  # noqa: E402
from binary import default_binary  # noqa: E402

FIELDS = ["game", "rules", "rules_no_demand", "atoms", "atoms_no_demand", "ms",
          "ms_no_demand", "relevant", "error", "error_no_demand"]


def ground(binary, game, timeout, flags):
    """(stats dict or None, error line) of one grounding."""
    code, _, err, _ = run([binary, "ground", str(game), "-o", "/dev/null", "--stats=json",
                           *flags], timeout)
    if code == "timeout":
        return None, "timeout"
    if code != 0:
        return None, first_error(err)
    line = next((l for l in reversed(err.splitlines()) if l.startswith("{")), None)
    return (json.loads(line), "") if line else (None, "no stats line")


def measure(binary, game, root, timeout):
    """One row: the game's counts both ways."""
    row = {"game": str(game.relative_to(root)) if root in game.parents else str(game)}
    for suffix, flags in (("", []), ("_no_demand", ["--no-demand"])):
        stats, error = ground(binary, game, timeout, flags)
        for field in ("rules", "atoms", "ms"):
            row[field + suffix] = "" if stats is None else stats[field]
        row["error" + suffix] = error
        if not suffix:
            row["relevant"] = "" if stats is None else int(bool(stats.get("relevant")))
    return row


def summary(rows):
    """The report's lines."""
    both = [r for r in rows if r["rules"] != "" and r["rules_no_demand"] != ""]
    shrunk = sorted((r for r in both if r["rules"] < r["rules_no_demand"]),
                    key=lambda r: r["rules"] / max(r["rules_no_demand"], 1))
    grown = [r for r in both if r["rules"] > r["rules_no_demand"]]
    only = [r for r in rows if (r["rules"] == "") != (r["rules_no_demand"] == "")]
    lines = [f"{len(rows)} games; {len(both)} ground both ways; demand shrinks {len(shrunk)}, "
             f"grows {len(grown)}, restricts a relation in "
             f"{sum(1 for r in rows if r['relevant'] == 1)}.", "",
             "| game | rules with demand | without | ratio | ms with | ms without |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in shrunk + grown:
        ratio = r["rules"] / max(r["rules_no_demand"], 1)
        lines.append(f"| {r['game']} | {r['rules']} | {r['rules_no_demand']} | {ratio:.3f} "
                     f"| {r['ms']} | {r['ms_no_demand']} |")
    lines += ["", "Grounded one way only:", ""]
    for r in only:
        lines.append(f"- {r['game']}: with demand {r['rules'] or r['error']}; "
                     f"without {r['rules_no_demand'] or r['error_no_demand']}")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=default_binary())
    ap.add_argument("--games", default="../shared/games")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default="docs/bench/demand")
    ap.add_argument("game", nargs="*")
    args = ap.parse_args()
    root = Path(args.games).resolve()
    games = [Path(g).resolve() for g in args.game] or sorted(
        p for p in root.rglob("*") if p.suffix in (".kif", ".hrf"))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda g: measure(args.bin, g, root, args.timeout), games))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "demand.tsv"), "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS, delimiter="\t")
        w.writeheader()
        w.writerows(rows)
    lines = summary(rows)
    Path(args.out, "demand.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
