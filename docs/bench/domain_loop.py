#!/usr/bin/env python3
"""The domain-graph reduction loop's benchmark (issue 7): incremental loop against
recomputing every round from scratch.

For each game: the domain graph's `true`/`does` instance counts (the seeds), what the loop
keeps, the loop's fixpoint size, the number of rounds, and the loop's time with retractions
into the live dataflow (`--superset domain-loop --no-final-pass`) against a fresh dataflow per
round (`--loop-recompute`): medians of RUNS fresh processes, per-round times of the median
run; then |S*| from one run with the final pass. Writes DIR/results.tsv and DIR/report.md.

Usage: python3 docs/bench/domain_loop.py [--runs N] [--timeout S] [--out DIR] [--bin PATH] GAME...
(gdlground from target/<host tuple>/release by default, built with `cargo build --release`).
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

from binary import default_binary

ARGS = None  # the parsed command line


def measure(game, extra, timeout):
    """One fresh process: the stats JSON and peak RSS, or the failure's first line."""
    cmd = ["/usr/bin/time", "-f", "RSS %M", ARGS.bin, "ground", game, "-o", "/dev/null",
           "--stats=json", "--superset", "domain-loop"] + extra
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout {timeout} s"
    stats, rss = None, None
    for line in p.stderr.splitlines():
        if line.startswith("{"):
            stats = json.loads(line)
        elif line.startswith("RSS "):
            rss = int(line.split()[1])
    if p.returncode != 0 or stats is None:
        err = next((l for l in p.stderr.splitlines() if "error" in l), p.stderr.strip()[:200])
        return None, err.splitlines()[0] if err else f"exit {p.returncode}"
    stats["rss_kib"] = rss
    return stats, None


def median_run(game, extra, runs, timeout):
    results = []
    for _ in range(runs):
        stats, err = measure(game, extra, timeout)
        if err:
            return None, err
        results.append(stats)
    results.sort(key=lambda s: s["loop"]["ms"])
    return results[len(results) // 2], None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("games", nargs="+")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--out", default="docs/bench/domain-loop")
    ap.add_argument("--bin", default=default_binary(), help="the gdlground executable")
    args = ap.parse_args()
    global ARGS
    ARGS = args
    os.makedirs(args.out, exist_ok=True)
    header = ["game", "true_seeds", "true_kept", "does_seeds", "does_kept", "fixpoint_atoms",
              "s_star", "rounds", "incremental_ms", "recompute_ms", "ratio",
              "incremental_round_ms", "recompute_round_ms", "incremental_rss_kib",
              "recompute_rss_kib", "status"]
    rows = []
    for i, game in enumerate(args.games):
        name = os.path.relpath(game, os.path.join(os.path.dirname(game), "..")).removesuffix(".kif")
        print(f"[{i + 1}/{len(args.games)}] {name}", file=sys.stderr, flush=True)
        inc, err = median_run(game, ["--no-final-pass"], args.runs, args.timeout)
        rec, err2 = (None, None) if err else median_run(game, ["--loop-recompute", "--no-final-pass"], args.runs, args.timeout)
        if err or err2:
            rows.append([name] + [""] * (len(header) - 2) + [err or ("recompute: " + err2)])
            continue
        final, err3 = measure(game, [], args.timeout)
        s_star = final["loop"]["reachable_atoms"] if final else f"({err3})"
        kept = inc["loop"]["seeded_kept"]
        t, d = kept.get("true", [0, 0]), kept.get("does", [0, 0])
        li, lr = inc["loop"]["ms"], rec["loop"]["ms"]
        rows.append([name, t[0], t[1], d[0], d[1], inc["loop"]["fixpoint_atoms"],
                     s_star, inc["loop"]["rounds"], f"{li:.1f}", f"{lr:.1f}",
                     f"{li / lr:.2f}", " ".join(f"{x:.0f}" for x in inc["loop"]["round_ms"]),
                     " ".join(f"{x:.0f}" for x in rec["loop"]["round_ms"]), inc["rss_kib"],
                     rec["rss_kib"], "ok"])
    with open(os.path.join(args.out, "results.tsv"), "w") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    version = subprocess.run([args.bin, "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    ok = [r for r in rows if r[-1] == "ok"]
    ratios = [float(r[10]) for r in ok]
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write("# Domain-graph reduction loop: incremental against recompute\n\n")
        f.write(f"{version} at {commit}, {time.strftime('%Y-%m-%d')}, {platform.machine()}, "
                f"{os.cpu_count()} cores; one worker; medians of {args.runs} fresh processes.\n\n")
        f.write(f"Regenerate: `python3 docs/bench/domain_loop.py --runs {args.runs} --out {args.out} GAMES...`\n\n")
        f.write("Seeds are the domain graph's instances of `true`/`does`; kept, what the loop's "
                "fixpoint keeps; S* from one run with the final pass. Loop times include the first run of the "
                "static relations; per-round times are of the median run.\n\n")
        f.write("| game | true seeds → kept | does seeds → kept | fixpoint atoms | S* | rounds | "
                "incremental ms | recompute ms | incr/recomp | rounds ms (incr) | rounds ms (recomp) | status |\n")
        f.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n")
        for r in rows:
            if r[-1] != "ok":
                f.write(f"| {r[0]} | | | | | | | | | | | {r[-1]} |\n")
                continue
            f.write(f"| {r[0]} | {r[1]} → {r[2]} | {r[3]} → {r[4]} | {r[5]} | {r[6]} | {r[7]} | "
                    f"{r[8]} | {r[9]} | {r[10]} | {r[11]} | {r[12]} | ok |\n")
        if ratios:
            f.write(f"\nincremental/recompute over {len(ratios)} games: median "
                    f"{statistics.median(ratios):.2f}, min {min(ratios):.2f}, max {max(ratios):.2f}.\n")


if __name__ == "__main__":
    main()
