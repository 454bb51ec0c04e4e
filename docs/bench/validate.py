#!/usr/bin/env python3
"""Validate every KIF game of the corpus: `gdlground validate GAME --playouts 20 --seed 1`.

    python3 docs/bench/validate.py [--bin BINARY] [--games ../shared/games]
        [--timeout 60] [--jobs 2] [--workers 1] [--out docs/validate] [GAME ...]

Runs the games (all `*.kif` files under --games, or the GAMEs given) --jobs at a time, each
killed after --timeout seconds, and writes OUT/validate.tsv, one row per game: status (`ok`,
`disagreement`, `rejected` as an invalid game, `not ground` with the engine's error,
`timeout`), seconds, the commit and the time limit of the run, and the summary or first error
line. Given GAMEs, only their rows are replaced: a first run with a short limit, then the slow
games again with a longer one. Prints the counts by status, and writes them with the rows that
are not `ok` to OUT/validate.md. With --workers N (for the largest games) each validation
grounds on N threads, which gives the same ground program; the row's detail says so.
"""

import argparse
import concurrent.futures
import csv
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from operations import run  # noqa: E402  (a command under a time limit, killed on expiry)
from binary import default_binary  # noqa: E402

FIELDS = ["game", "status", "seconds", "commit", "timeout", "detail"]


def classify(code, out, err):
    """The status of one validation and its line: the summary, the disagreement's first line,
    or the first error."""
    first = lambda text: next((l for l in text.splitlines() if l.strip()), "")
    if code == "timeout":
        return "timeout", ""
    if code == 0:
        return "ok", first(out).split(": ", 1)[-1]
    if code == 1 and out.strip():
        return "disagreement", first(out).split(": ", 1)[-1]
    error = next((l for l in err.splitlines() if "error" in l), first(err))
    if code == 1:
        return "rejected", error
    return "not ground", error


def validate(args, game, commit):
    cmd = [args.bin, "validate", str(game), "--playouts", "20", "--seed", "1", "-w", str(args.workers)]
    code, out, err, seconds = run(cmd, args.timeout)
    status, detail = classify(code, out, err)
    if args.workers > 1:
        detail = f"(-w {args.workers}) {detail}"
    name = os.path.relpath(game, args.games)
    return {"game": name, "status": status, "seconds": f"{seconds:.1f}", "commit": commit,
            "timeout": str(args.timeout), "detail": detail}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=default_binary())
    ap.add_argument("--games", default="../shared/games")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--workers", type=int, default=1, help="worker threads of each validation")
    ap.add_argument("--out", default="docs/validate")
    ap.add_argument("only", nargs="*", help="games to (re-)run; default: every *.kif file")
    args = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    games = [Path(g) for g in args.only] or sorted(Path(args.games).rglob("*.kif"))
    tsv = Path(args.out) / "validate.tsv"
    rows = {}
    if args.only and tsv.exists():
        with open(tsv) as f:
            rows = {r["game"]: r for r in csv.DictReader(f, delimiter="\t")}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for i, row in enumerate(pool.map(lambda g: validate(args, g, commit), games), 1):
            rows[row["game"]] = row
            print(f"[{i}/{len(games)}] {row['game']}: {row['status']} {row['seconds']} s",
                  file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    with open(tsv, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS, delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(rows[g] for g in sorted(rows))
    counts = {}
    for r in rows.values():
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items(), key=lambda c: -c[1]))
    lines = ["# Validation of the KIF corpus", "",
             "Regenerate: `python3 docs/bench/validate.py --out docs/validate` (then the slow "
             "games again with a longer `--timeout`, naming them). Every row: "
             "`gdlground validate GAME --playouts 20 --seed 1`; all rows: "
             "[validate.tsv](validate.tsv).", "",
             f"{len(rows)} games: {summary}.", "",
             "| game | status | seconds | commit | limit (s) | detail |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['game']} | {r['status']} | {r['seconds']} | {r['commit']} | {r['timeout']} "
              f"| {r['detail'].replace('|', '/')} |"
              for g, r in sorted(rows.items()) if r["status"] != "ok" or float(r["seconds"]) > 45]
    (Path(args.out) / "validate.md").write_text("\n".join(lines) + "\n")
    print(f"{len(rows)} games: {summary}")


if __name__ == "__main__":
    main()
