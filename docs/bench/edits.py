#!/usr/bin/env python3
"""Edit benchmark: edit-to-output time of `gdlground ground GAME --edits` over a full grounding.

For each game: the full grounding time (`ground --stats=json`, median of --runs), then one live
run of an edit script made from the game's own text:
  bottom  three static facts, each removed and added back (6 edits);
  top     three goal rules, each with its value changed and changed back (6 edits; a goal
          whose value is a variable gets an always-true literal and loses it again);
  deep    one recursive rule, removed and added back (2 edits), when the game has one.
Each edit's line gives the time to read the edited text (parse and checks: the whole game's
text, as `watch` reads every save), then its time from that version (edit-to-file: planning,
dataflow, ground game, writing the file), the dataflow part, the ground game's time
(edit-to-ground-game: what the library's `Session::apply` returns, the ground program and its
delta) and whether the ground game was patched or rebuilt by the whole ground stage, and how
many ground rules it added and removed
against the game's total (an edit that changes a fifth of the game writes a fifth of it anew,
so the share says which edits the 5 % goal can hold for). The script runs --repeat times in
one session (each edit pair returns to the game's text, so every repetition meets the same
versions), and each edit's times are the medians over the repetitions: a connect four goal
edit takes a quarter of a millisecond, and one timing of it moved by a fifth between runs.
The report gives edit-to-file both without the read (the library's `Session::apply` takes a
parsed version) and with it (a save in `watch`, whose whole text is read again).
Writes DIR/edits.md and DIR/edits.tsv.

    python3 docs/bench/edits.py --out docs/edits
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile, time

from binary import default_binary

# Chess is chess_200, the chess of the corpus report's named games (docs/bench/README.md):
# base/chess.kif has no grounding within reach (its reachable atoms include every combination
# of `threatened_with_capture`'s coordinates; gringo does not finish it either), and its full
# grounding only ran into the memory limit here.
GAMES = ["base/hex.kif", "base/skirmish.kif", "base/breakthrough.kif", "base/connectFour.kif",
         "base/chess_200.kif"]
KEYWORDS = {"role", "init", "base", "input", "true", "next", "legal", "does", "goal", "terminal"}


def statements(text):
    """Top-level S-expressions of a KIF text, as written (comments skipped)."""
    out, depth, start, i = [], 0, None, 0
    while i < len(text):
        c = text[i]
        if c == ';':
            while i < len(text) and text[i] != '\n':
                i += 1
            continue
        if c == '(':
            if depth == 0:
                start = i
            depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0:
                out.append(text[start:i + 1])
        i += 1
    return out


def head_name(s):
    m = re.match(r"\(\s*<=\s*\(?\s*([^\s()]+)", s)
    return m.group(1) if m else None


def script(text):
    sts = statements(text)
    facts = [s for s in sts if not s.lstrip("( ").startswith("<=") and "?" not in s
             and re.match(r"\(\s*([^\s()]+)", s).group(1).lower() not in KEYWORDS]
    goals = [s for s in sts if re.match(r"\(\s*<=\s*\(\s*goal\b", s)]
    deep = [s for s in sts if s.lstrip("( ").startswith("<=") and head_name(s)
            and head_name(s).lower() not in KEYWORDS
            and re.search(r"\(\s*" + re.escape(head_name(s)) + r"[\s)]", s[s.index(head_name(s)) + len(head_name(s)):])]
    lines, kinds = [], []
    one = lambda s: " ".join(s.split())
    for f in [facts[0], facts[len(facts) // 2], facts[-1]] if facts else []:
        lines += [f"= bottom: remove {one(f)}", f"- {one(f)}", f"= bottom: add back {one(f)}", f"+ {one(f)}"]
        kinds += ["bottom", "bottom"]
    for g in goals[:3]:
        m = re.search(r"goal\s+(\S+)\s+(\d+)", g)
        if not m:
            # A goal whose value is computed: a literal that always holds added, then removed.
            changed = g.rstrip()[:-1] + " (distinct 0 1))"
            lines += [f"= top: change {one(g)}", f"- {one(g)}", f"+ {one(changed)}",
                      f"= top: change back", f"- {one(changed)}", f"+ {one(g)}"]
            kinds += ["top", "top"]
            continue
        value = int(m.group(2))
        changed = g[:m.start(2)] + str(value - 1 if value > 0 else 1) + g[m.end(2):]
        lines += [f"= top: change {one(g)}", f"- {one(g)}", f"+ {one(changed)}",
                  f"= top: change back", f"- {one(changed)}", f"+ {one(g)}"]
        kinds += ["top", "top"]
    if deep:
        d = deep[0]
        lines += [f"= deep: remove {one(d)}", f"- {one(d)}", f"= deep: add back", f"+ {one(d)}"]
        kinds += ["deep", "deep"]
    return "\n".join(lines) + "\n", kinds


def full_ms(binary, game, runs):
    times = []
    for _ in range(runs):
        p = subprocess.run([binary, "ground", game, "-o", "/dev/null", "--stats=json"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            return None, None, p.stderr.strip().splitlines()[0] if p.stderr.strip() else "failed"
        stats = json.loads(p.stderr.strip().splitlines()[-1])
        times.append(stats["ms"])
    return statistics.median(times), stats["rules"], None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default=os.path.join(os.path.dirname(__file__), "../../../shared/games"))
    ap.add_argument("--binary", default=default_binary())
    ap.add_argument("--runs", type=int, default=5, help="full groundings per game (median)")
    ap.add_argument("--repeat", type=int, default=5, help="times the edit script runs (medians)")
    ap.add_argument("--out", default="docs/edits")
    args = ap.parse_args()
    rows, notes = [], []
    for name in GAMES:
        game = os.path.join(args.games, name)
        full, total_rules, error = full_ms(args.binary, game, args.runs)
        if full is None:
            notes.append(f"{name}: not benchmarked: the full grounding itself fails ({error})")
            print(notes[-1], file=sys.stderr)
            continue
        text, kinds = script(open(game).read())
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "edits.txt")
            open(path, "w").write(text * args.repeat)
            p = subprocess.run([args.binary, "ground", game, "--edits", path, "-o", os.path.join(tmp, "out.kif")],
                               capture_output=True, text=True)
        if p.returncode != 0:
            notes.append(f"{name}: the edit run failed: {p.stderr.strip()[:300]}")
            print(notes[-1], file=sys.stderr)
            continue
        changed = r"ground rules \+(\d+)/-(\d+)"
        pattern = (r"read ([\d.]+) ms \+ ([\d.]+) ms \(dataflow ([\d.]+) ms; ground game ([\d.]+) ms, "
                   r"(patched|rebuilt)\)$")
        edits = [l for l in p.stderr.splitlines() if re.search(pattern, l)]
        start = [l for l in p.stderr.splitlines() if "grounded live" in l]
        live_ms = int(re.search(r"(\d+) ms$", start[0]).group(1)) if start else None
        n = len(kinds)
        if len(edits) != n * args.repeat:
            notes.append(f"{name}: {len(edits)} edit lines for {n} edits run {args.repeat} times")
            print(notes[-1], file=sys.stderr)
            continue
        for i, kind in enumerate(kinds):
            found = [re.search(pattern, edits[i + r * n]).groups() for r in range(args.repeat)]
            read, total, dataflow, grounded = (statistics.median(float(f[k]) for f in found)
                                               for k in range(4))
            how = found[0][4]
            added, removed = re.search(changed, edits[i]).groups()
            rows.append((name, kind, edits[i].split(":")[0], total, dataflow, grounded, how,
                         full, live_ms, int(added) + int(removed), total_rules, read))
        print(f"{name}: full {full} ms, live start {live_ms} ms, {n} edits run {args.repeat} times",
              file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "edits.tsv"), "w") as f:
        f.write("game\tkind\tedit\tedit_ms\tdataflow_ms\tground_game_ms\tground_game\tfull_ms\tlive_start_ms\t"
                "rules_changed\trules_total\tread_ms\n")
        for r in rows:
            f.write("\t".join(map(str, r)) + "\n")
    with open(os.path.join(args.out, "edits.md"), "w") as f:
        f.write("# Edit benchmark\n\nRegenerate: `python3 docs/bench/edits.py --out docs/edits` "
                f"(run {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, one worker; each edit's times "
                f"the medians over {args.repeat} runs of the script in one session, a full grounding's "
                f"the median of {args.runs}).\n\n"
                "`file` is edit-to-file from the edited version as loaded (planning, dataflow update, "
                "ground game, writing the whole file); `read` is loading that version from its text as "
                "`watch` does for every save (parsing and lowering the statements new since the last "
                "version, joining and checking them all), and "
                "`read + file` the two together; "
                "`ground game` is edit-to-ground-game (what `Session::apply` returns: the ground program "
                "and its delta); `dataflow` is planning and the live dataflow's update alone; `patched` "
                "counts the edits whose ground game was patched rather than rebuilt by the whole ground "
                "stage. Ratios are over the median full grounding (`ground -o /dev/null`).\n\n")
        f.write("| game | kind | edits | patched | full ms | live start ms | file ms (median) | file/full (median, max) "
                "| read ms (median) | read + file/full (median, max) "
                "| ground game ms (median) | ground game/full (median, max) | dataflow/full (median, max) |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        ratio = lambda xs, full: f"{statistics.median(xs) / full:.1%}, {max(xs) / full:.1%}"
        saved_ms = lambda r: r[11] + r[3]  # the read of the edited text, then edit-to-file
        for name in GAMES:
            for kind in ["bottom", "top", "deep"]:
                rs = [r for r in rows if r[0] == name and r[1] == kind]
                if not rs:
                    continue
                full = rs[0][7]
                e, d, g = [r[3] for r in rs], [r[4] for r in rs], [r[5] for r in rs]
                rd, saved = [r[11] for r in rs], [saved_ms(r) for r in rs]
                patched = sum(r[6] == "patched" for r in rs)
                f.write(f"| {name} | {kind} | {len(rs)} | {patched} | {full:.1f} | {rs[0][8]} | {statistics.median(e):.1f} | "
                        f"{ratio(e, full)} | {statistics.median(rd):.2f} | {ratio(saved, full)} | "
                        f"{statistics.median(g):.1f} | {ratio(g, full)} | {ratio(d, full)} |\n")
        if rows:
            share = lambda i: [r[i] / r[7] for r in rows]
            saves = [saved_ms(r) / r[7] for r in rows]
            f.write(f"\nAll {len(rows)} edits ({sum(r[6] == 'patched' for r in rows)} patched): "
                    f"edit-to-file/full median {statistics.median(share(3)):.1%} (max {max(share(3)):.1%}); "
                    f"with the read of the edited text, median {statistics.median(saves):.1%} "
                    f"(max {max(saves):.1%}); "
                    f"edit-to-ground-game/full median {statistics.median(share(5)):.1%} (max {max(share(5)):.1%}); "
                    f"dataflow/full median {statistics.median(share(4)):.1%} (max {max(share(4)):.1%}). "
                    f"{sum(r[9] > 0.05 * r[10] for r in rows)} of the {len(rows)} edits add and remove more "
                    "than 5 % of their game's ground rules.\n")
        for n in notes:
            f.write(f"\n- {n}\n")


if __name__ == "__main__":
    main()
