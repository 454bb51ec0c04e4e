#!/usr/bin/env python3
"""Edit benchmark: edit-to-output time of `gdlground ground GAME --edits` over a full grounding.

For each game: the full grounding time (`ground --stats=json`, median of --runs), then one live
run of an edit script made from the game's own text:
  bottom  three static facts, each removed and added back (6 edits);
  top     three goal rules, each with its value changed and changed back (6 edits; a goal
          whose value is a variable gets an always-true literal and loses it again);
  deep    one recursive rule, removed and added back (2 edits), when the game has one.
Each edit's line gives its total time (planning + dataflow + ground stage + writing the file)
and the dataflow part. Writes DIR/edits.md and DIR/edits.tsv.

    python3 docs/bench/edits.py --out docs/edits
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile, time

GAMES = ["base/hex.kif", "base/skirmish.kif", "base/chess.kif", "base/breakthrough.kif",
         "base/connectFour.kif"]
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
            return None, p.stderr.strip().splitlines()[0] if p.stderr.strip() else "failed"
        times.append(json.loads(p.stderr.strip().splitlines()[-1])["ms"])
    return statistics.median(times), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default=os.path.join(os.path.dirname(__file__), "../../../shared/games"))
    ap.add_argument("--binary", default=os.path.join(os.path.dirname(__file__), "../../target/release/gdlground"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default="docs/edits")
    args = ap.parse_args()
    rows, notes = [], []
    for name in GAMES:
        game = os.path.join(args.games, name)
        full, error = full_ms(args.binary, game, args.runs)
        if full is None:
            notes.append(f"{name}: not benchmarked: the full grounding itself fails ({error})")
            print(notes[-1], file=sys.stderr)
            continue
        text, kinds = script(open(game).read())
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "edits.txt")
            open(path, "w").write(text)
            p = subprocess.run([args.binary, "ground", game, "--edits", path, "-o", os.path.join(tmp, "out.kif")],
                               capture_output=True, text=True)
        if p.returncode != 0:
            notes.append(f"{name}: the edit run failed: {p.stderr.strip()[:300]}")
            print(notes[-1], file=sys.stderr)
            continue
        edits = [l for l in p.stderr.splitlines() if re.search(r"ms \(dataflow \d+ ms\)$", l)]
        start = [l for l in p.stderr.splitlines() if "grounded live" in l]
        live_ms = int(re.search(r"(\d+) ms$", start[0]).group(1)) if start else None
        for kind, line in zip(kinds, edits):
            total, dataflow = map(int, re.search(r"(\d+) ms \(dataflow (\d+) ms\)$", line).groups())
            rows.append((name, kind, line.split(":")[0], total, dataflow, full, live_ms))
        print(f"{name}: full {full} ms, live start {live_ms} ms, {len(edits)} edits", file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "edits.tsv"), "w") as f:
        f.write("game\tkind\tedit\tedit_ms\tdataflow_ms\tfull_ms\tlive_start_ms\n")
        for r in rows:
            f.write("\t".join(map(str, r)) + "\n")
    with open(os.path.join(args.out, "edits.md"), "w") as f:
        f.write("# Edit benchmark\n\nRegenerate: `python3 docs/bench/edits.py --out docs/edits` "
                f"(run {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, one worker).\n\n"
                "`edit` is edit-to-output (planning, dataflow update, instantiation, ground stage, "
                "rendering, writing the file); `dataflow` is planning and the live dataflow's update "
                "alone; both over the median full grounding (`ground -o /dev/null`).\n\n")
        f.write("| game | kind | edits | full ms | live start ms | edit ms (median) | edit/full (median, max) | dataflow ms (median) | dataflow/full (median, max) |\n|---|---|---|---|---|---|---|---|---|\n")
        for name in GAMES:
            for kind in ["bottom", "top", "deep"]:
                rs = [r for r in rows if r[0] == name and r[1] == kind]
                if not rs:
                    continue
                full = rs[0][5]
                e = [r[3] for r in rs]
                d = [r[4] for r in rs]
                f.write(f"| {name} | {kind} | {len(rs)} | {full:.0f} | {rs[0][6]} | {statistics.median(e):.0f} | "
                        f"{statistics.median(e) / full:.1%}, {max(e) / full:.1%} | {statistics.median(d):.0f} | "
                        f"{statistics.median(d) / full:.1%}, {max(d) / full:.1%} |\n")
        if rows:
            e = [r[3] / r[5] for r in rows]
            d = [r[4] / r[5] for r in rows]
            f.write(f"\nAll {len(rows)} edits: edit/full median {statistics.median(e):.1%} (max {max(e):.1%}); "
                    f"dataflow/full median {statistics.median(d):.1%} (max {max(d):.1%}).\n")
        for n in notes:
            f.write(f"\n- {n}\n")


if __name__ == "__main__":
    main()
