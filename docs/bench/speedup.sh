#!/usr/bin/env bash
# Speedup of `-w 2` over `-w 1` on the 10 largest outputs of the committed corpus report
# (issue 5's worker goal; by ground rules at one worker in docs/bench/corpus/results.csv, read
# when the script starts): for each game, wall time of `gdlground ground GAME -o /dev/null
# -w N` (/usr/bin/time), ROUNDS rounds alternating binaries and -w 1 / -w 2, then per binary
# and game the median of each and their ratio; over the 10 games, the median ratio, their
# geometric mean and the lowest, and the ratio of the summed medians (all ten grounded in turn).
#
#   bash docs/bench/speedup.sh OUT.txt BINARY [BINARY...]     (ROUNDS=4 by default)
#
# Run it on an otherwise idle machine with both cores free; it takes about 5 minutes per
# binary and round.
set -euo pipefail
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
games=$(python3 - "$here/corpus/results.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["workers"] == "1" and r["ours_status"] == "ok"]
rows.sort(key=lambda r: -int(r["rules"]))
print(" ".join(r["game"].removeprefix("../shared/games/") for r in rows[:10]))
PY
)
games_dir=$(cd "$here/../../../shared/games" && pwd)
: >"$out"
for round in $(seq "${ROUNDS:-4}"); do
    for game in $games; do
        for binary in "$@"; do
            for w in 1 2; do
                /usr/bin/time -f "$round $game $binary $w %e %M" "$binary" ground \
                    "$games_dir/$game" -o /dev/null -w "$w" --max-memory 16 \
                    2>&1 >/dev/null | tail -1 >>"$out"
            done
        done
    done
done
# Columns: round, game, binary, workers, seconds, peak KiB.
python3 - "$out" <<'PY'
import collections, statistics, sys
times = collections.defaultdict(list)
for line in open(sys.argv[1]):
    _, game, binary, w, seconds, _ = line.split()
    times[binary, game, w].append(float(seconds))
for binary in dict.fromkeys(b for b, _, _ in times):
    ratios, totals = [], [0.0, 0.0]
    for game in sorted({g for b, g, _ in times if b == binary}):
        one, two = (statistics.median(times[binary, game, w]) for w in "12")
        ratios.append(one / two)
        totals = [totals[0] + one, totals[1] + two]
        print(f"{binary} {game:28} -w 1 {one:6.2f} s  -w 2 {two:6.2f} s  {one / two:.2f}x")
    print(f"{binary} median speedup {statistics.median(ratios):.2f}x, "
          f"geometric mean {statistics.geometric_mean(ratios):.2f}x, "
          f"lowest {min(ratios):.2f}x; all ten in turn -w 1 {totals[0]:.1f} s, "
          f"-w 2 {totals[1]:.1f} s: {totals[0] / totals[1]:.2f}x")
PY
