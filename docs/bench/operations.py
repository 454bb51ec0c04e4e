#!/usr/bin/env python3
"""Ground and validate every Stanford operation game (.hrf) of the corpus; write a table.

    python3 docs/bench/operations.py [--bin BINARY]
        [--games ../shared/games/stanford_gamemaster] [--timeout 120] [--max-memory 8]
        [--out docs/operations]

For each file: `gdlground ground FILE -o /dev/null --stats=json` under `/usr/bin/time -f %M`
(wall time from the stats, peak RSS from time), then `gdlground validate FILE --playouts 20
--seed 1`. Writes OUT.tsv (one row per file) and prints the Markdown rows of the table in
docs/operations.md.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time

from binary import default_binary


def run(cmd, timeout):
    """(exit code or 'timeout', stdout, stderr, seconds); on timeout the whole process group
    (/usr/bin/time and gdlground under it) is killed."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err, time.monotonic() - start
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return "timeout", "", "", time.monotonic() - start


def first_error(text):
    """The first error line of a diagnostic, without the file name."""
    for line in text.splitlines():
        if "error" in line:
            return line.split(": ", 1)[-1].strip()
    return text.strip().splitlines()[-1] if text.strip() else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=default_binary())
    ap.add_argument("--games", default="../shared/games/stanford_gamemaster")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--out", default="docs/operations")
    ap.add_argument("--max-memory", type=float, default=8, help="GiB, passed to gdlground")
    args = ap.parse_args()
    files = sorted(f for f in os.listdir(args.games) if f.endswith(".hrf"))
    rows = []
    for i, name in enumerate(files, 1):
        path = os.path.join(args.games, name)
        print(f"[{i}/{len(files)}] {name}", file=sys.stderr)
        code, _, err, secs = run(
            ["/usr/bin/time", "-f", "%M", args.bin, "ground", path, "-o", "/dev/null",
             "--stats=json", "--max-memory", str(args.max_memory)], args.timeout)
        row = {"game": name, "status": "", "bases": "", "actions": "", "atoms": "", "facts": "",
               "rules": "", "ms": "", "peak_mib": "", "validate": ""}
        if code == "timeout":
            row["status"] = f"not finished in {args.timeout:.0f} s"
        elif code != 0:
            row["status"] = f"exit {code}: {first_error(err)}"
        else:
            lines = err.strip().splitlines()
            stats = json.loads(lines[-2])
            row.update({k: stats[k] for k in ["bases", "actions", "atoms", "facts", "rules", "ms"]})
            row["peak_mib"] = int(lines[-1]) // 1024
            row["status"] = "ok"
            vcode, vout, verr, vsecs = run(
                [args.bin, "validate", path, "--playouts", "20", "--seed", "1"], args.timeout)
            if vcode == "timeout":
                row["validate"] = f"not finished in {args.timeout:.0f} s"
            elif vcode == 0:
                row["validate"] = "ok: " + vout.split(": ok: ", 1)[-1].split(",")[0]
            else:
                text = (vout + verr).strip().splitlines()
                problem = next((l for l in text if "playout" in l or "error" in l), text[0])
                row["validate"] = "FAILS: " + problem.split(": ", 1)[-1]
        rows.append(row)
    keys = list(rows[0].keys())
    with open(args.out + ".tsv", "w") as f:
        f.write("\t".join(keys) + "\n")
        for r in rows:
            f.write("\t".join(str(r[k]) for k in keys) + "\n")
    print("| game | bases | actions | atoms | facts | rules | ms | peak MiB | validate (20 playouts) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        if r["status"] != "ok":
            print(f"| {r['game']} | {r['status']} ||||||||")
            continue
        print(f"| {r['game']} | {r['bases']} | {r['actions']} | {r['atoms']} | {r['facts']} | "
              f"{r['rules']} | {r['ms']} | {r['peak_mib']} | {r['validate']} |")


if __name__ == "__main__":
    main()
