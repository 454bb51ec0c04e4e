//! Rule edits re-grounded live ([`gdlground::Session`]): after every edit the session's
//! ground game equals a from-scratch grounding of the edited game, byte for byte.
//!
//! The edits are random (seeded): remove a statement, add a removed one back, change a
//! constant in a statement, add a new statement (a copy of one with a constant changed), on
//! KIF and Stanford `.hrf` games of ../shared/games. Without the corpus the corpus test skips
//! with a message on stderr (and fails when `CI=true`). Each edited version is read as
//! `watch` reads it ([`gdlground::load::Reader`]), and checked to read as a full read does.

mod support;

use gdlground::engine::Options;
use gdlground::load::{load, source_from_bytes, Reader};
use gdlground::program::Program;
use gdlground::syntax::edits::{apply, Edit};
use gdlground::syntax::{parse, SourceFile, Syntax};
use gdlground::write::ground::{lines, text, AtomText};
use gdlground::write::spliced::Text;
use gdlground::write::Notation;
use gdlground::{ground, Game, GroundDelta, GroundError, Grounded, LoadError, Session, Update};

/// The games edited, with their syntax: small enough to ground from scratch after each edit.
const GAMES: &[(&str, Syntax)] = &[
    ("base/ticTacToe.kif", Syntax::Kif),
    ("base/connectFour.kif", Syntax::Kif),
    ("base/buttons.kif", Syntax::Kif),
    ("base/hanoi.kif", Syntax::Kif),
    ("base/blocks.kif", Syntax::Kif),
    ("base/nim1.kif", Syntax::Kif),
    ("base/knightsTour.kif", Syntax::Kif),
    ("base/eightPuzzle.kif", Syntax::Kif),
    // Demand restricts some of its relations (14,383 rules without it, 6,343 with).
    ("base/hitori.kif", Syntax::Kif),
    ("stanford_gamemaster/tictactoe.hrf", Syntax::Hrf),
    ("stanford_gamemaster/connectfour.hrf", Syntax::Hrf),
    ("stanford_gamemaster/buttonsandlights.hrf", Syntax::Hrf),
    ("stanford_gamemaster/hunter.hrf", Syntax::Hrf),
    ("stanford_gamemaster/knightthroughsmall.hrf", Syntax::Hrf),
    ("stanford_gamemaster/lightboard.hrf", Syntax::Hrf),
];

/// Edits applied per game (invalid edited games are not counted).
const EDITS_PER_GAME: usize = 15;

/// The ground game as text (infix, which every model can be written in).
fn written(grounded: &Grounded, program: &Program) -> String {
    let program = grounded.program(program);
    text(
        &grounded.ground,
        &AtomText::new(program, &grounded.encoding, Notation::Infix),
    )
}

/// The program of `text`, or `None` if it is not a valid game.
fn program(text: &str, syntax: Syntax) -> Option<Program> {
    let source = source_from_bytes("game".into(), text.as_bytes().to_vec(), syntax).ok()?;
    load(source, syntax).ok().map(|g| g.program)
}

/// The program of `text` as `reader` reads it (only the statements new since its last read
/// parsed and lowered), checked to be the program, warnings or errors a full read gives;
/// `None` if it is not a valid game.
fn read(reader: &mut Reader, text: &str, syntax: Syntax) -> Option<Program> {
    let source =
        || source_from_bytes("game".into(), text.as_bytes().to_vec(), syntax).expect("UTF-8");
    let outcome = |read: Result<Game, LoadError>| {
        read.map(|g| (g.program, g.warnings))
            .map_err(|e| e.render())
    };
    let by_reader = outcome(reader.read(source(), syntax));
    assert!(
        by_reader == outcome(load(source(), syntax)),
        "the reader reads this otherwise than a full read:\n{text}"
    );
    by_reader.ok().map(|(program, _)| program)
}

/// Limits that keep a bad edit (one that makes a game explode) short, on `workers` workers.
fn options(workers: usize) -> Options {
    Options {
        workers,
        max_atoms: 2_000_000,
        max_memory: Some(4 << 30),
        ..Options::default()
    }
}

/// The statements of `text`, as written.
fn statements(text: &str, syntax: Syntax) -> Vec<String> {
    let file = SourceFile::new("game", text);
    parse(&file, syntax)
        .statements
        .iter()
        .map(|s| file.slice(s.span()).to_string())
        .collect()
}

/// The constants of a statement: words that are not variables nor GDL keywords, with
/// their byte ranges.
fn constants(statement: &str, syntax: Syntax) -> Vec<(usize, usize)> {
    const KEYWORDS: &[&str] = &[
        "role",
        "init",
        "true",
        "next",
        "legal",
        "does",
        "goal",
        "terminal",
        "distinct",
        "not",
        "or",
        "and",
        "base",
        "input",
        "action",
        "plus",
        "minus",
        "times",
        "leq",
        "less",
        "same",
        "add",
        "countofall",
    ];
    let bytes = statement.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !word(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && word(bytes[i]) {
            i += 1;
        }
        let text = &statement[start..i];
        let variable = match syntax {
            Syntax::Kif => start > 0 && bytes[start - 1] == b'?',
            _ => text.starts_with(|c: char| c.is_ascii_uppercase() || c == '_'),
        };
        if !variable && !KEYWORDS.contains(&text.to_ascii_lowercase().as_str()) {
            out.push((start, i));
        }
    }
    out
}

/// A random edit of `text`; `removed` holds statements removed earlier (to add back).
fn random_edit(
    text: &str,
    syntax: Syntax,
    removed: &mut Vec<String>,
    random: &mut support::Random,
) -> Edit {
    let all = statements(text, syntax);
    let pool: Vec<String> = all
        .iter()
        .flat_map(|s| {
            constants(s, syntax)
                .into_iter()
                .map(move |(a, b)| s[a..b].to_string())
        })
        .collect();
    let pick = all[random.below(all.len())].clone();
    let changed = |random: &mut support::Random| {
        let spots = constants(&pick, syntax);
        if spots.is_empty() || pool.is_empty() {
            return pick.clone();
        }
        let (a, b) = spots[random.below(spots.len())];
        format!(
            "{}{}{}",
            &pick[..a],
            pool[random.below(pool.len())],
            &pick[b..]
        )
    };
    let mut edit = Edit {
        label: String::new(),
        remove: Vec::new(),
        add: Vec::new(),
    };
    match random.below(4) {
        0 => {
            edit.remove.push((0, pick.clone()));
            removed.push(pick);
        }
        1 if !removed.is_empty() => {
            let back = removed.swap_remove(random.below(removed.len()));
            edit.add.push(back);
        }
        2 => {
            edit.add.push(changed(random));
            edit.remove.push((0, pick));
        }
        _ => edit.add.push(changed(random)),
    }
    edit
}

/// The atom texts of `grounded`, a grounding of `program`.
fn atom_text<'a>(grounded: &'a Grounded, program: &'a Program) -> AtomText<'a> {
    AtomText::new(
        grounded.program(program),
        &grounded.encoding,
        Notation::Infix,
    )
}

/// A line of the ground game with its body (or an operation's conditions) sorted: the order
/// of body literals follows atom numbers, which differ between versions.
fn normal(line: &str) -> String {
    let sorted = |body: &str| {
        let mut parts: Vec<&str> = body.split(" & ").collect();
        parts.sort_unstable();
        parts.join(" & ")
    };
    if let Some((head, body)) = line.split_once(" :- ") {
        return format!("{head} :- {}", sorted(body));
    }
    if let Some((action, rest)) = line.split_once(" :: ") {
        if let Some((conditions, effects)) = rest.split_once(" ==> ") {
            return format!("{action} :: {} ==> {effects}", sorted(conditions));
        }
    }
    line.to_string()
}

/// Checks the ground delta against the texts: the lines written before, less the removed
/// facts and rules, plus the added ones, are the lines written now (as multisets, bodies
/// compared as sets).
fn check_delta(update: &Update<'_>, last: &Program, next: &Program, before: &str) {
    let d = &update.delta;
    let mut expected: Vec<String> = before.lines().map(normal).collect();
    match &update.previous {
        None => assert_eq!(*d, GroundDelta::default()),
        Some(previous) => {
            let gone = lines(
                &previous.ground,
                &atom_text(previous, last),
                &d.facts_removed,
                &d.rules_removed,
            );
            for line in gone.iter().map(|l| normal(l)) {
                let at = expected.iter().position(|l| *l == line);
                expected
                    .swap_remove(at.unwrap_or_else(|| panic!("removed `{line}` was not written")));
            }
            let now = update.grounded;
            let added = lines(
                &now.ground,
                &atom_text(now, next),
                &d.facts_added,
                &d.rules_added,
            );
            expected.extend(added.iter().map(|l| normal(l)));
        }
    }
    let mut written: Vec<String> = written(update.grounded, next).lines().map(normal).collect();
    expected.sort_unstable();
    written.sort_unstable();
    assert_eq!(
        expected, written,
        "the delta does not account for the change"
    );
}

#[test]
fn random_edits_reground_like_a_full_grounding() {
    let Some(corpus) = support::corpus() else {
        return;
    };
    let mut random = support::Random(0x9e37_79b9_7f4a_7c15);
    let (mut applied, mut invalid, mut failing) = (0, 0, 0);
    let (mut patched, mut in_order) = (0, 0);
    for (i, &(name, syntax)) in GAMES.iter().enumerate() {
        // Every other game on two workers.
        let workers = 1 + i % 2;
        let path = corpus.join(name);
        let mut text = std::fs::read_to_string(&path).expect("a corpus game");
        let mut reader = Reader::new();
        let first = read(&mut reader, &text, syntax).expect("a valid game");
        let mut session = Session::start(&first, &options(workers)).expect("grounds");
        let full = ground(&first, &options(workers)).expect("grounds");
        assert_eq!(
            written(session.grounded(), &first),
            written(&full, &first),
            "{name}"
        );
        let mut removed = Vec::new();
        let mut done = 0;
        let mut before = written(session.grounded(), &first);
        // The text as `watch` keeps it: spliced from the last one when the update allows.
        let mut spliced = Text::new(
            &session.grounded().ground,
            &atom_text(session.grounded(), &first),
        );
        while done < EDITS_PER_GAME {
            let edit = random_edit(&text, syntax, &mut removed, &mut random);
            let edited = apply(&text, syntax, &edit, "random").expect("the statement exists");
            let Some(next) = read(&mut reader, &edited, syntax) else {
                invalid += 1;
                continue;
            };
            let full = ground(&next, &options(workers));
            let live = session.apply(&next);
            match (full, live) {
                (Ok(full), Ok(update)) => {
                    let (a, b) = (written(update.grounded, &next), written(&full, &next));
                    assert!(a == b, "{name} after {edit:?}:\nlive:\n{a}\nfull:\n{b}");
                    let atoms = atom_text(update.grounded, &next);
                    match update.in_order {
                        true => spliced.advance(&update.grounded.ground, &atoms, &update.delta),
                        false => spliced.rebuild(&update.grounded.ground, &atoms),
                    }
                    assert!(
                        spliced.to_bytes() == b.as_bytes(),
                        "{name} after {edit:?}: spliced text"
                    );
                    if done % 5 == 4 {
                        // Texts are copied into one block when scattered, which small games'
                        // never are: the next splices start from a copied one.
                        spliced.compact();
                        assert!(spliced.to_bytes() == b.as_bytes(), "{name}: copied text");
                    }
                    in_order += update.in_order as usize;
                    let last = program(&text, syntax).expect("the last version");
                    check_delta(&update, &last, &next, &before);
                    patched += update.patched as usize;
                    before = a;
                    text = edited;
                }
                (Err(GroundError::Engine(a)), Err(GroundError::Engine(b))) => {
                    // Both stop (the edit made the game explode): back to the last version.
                    assert_eq!(
                        std::mem::discriminant(&a),
                        std::mem::discriminant(&b),
                        "{name}: {a:?} / {b:?}"
                    );
                    failing += 1;
                    let last = program(&text, syntax).expect("the last version");
                    session = Session::start(&last, &options(workers)).expect("grounds");
                    before = written(session.grounded(), &last);
                    spliced = Text::new(
                        &session.grounded().ground,
                        &atom_text(session.grounded(), &last),
                    );
                }
                (full, live) => panic!(
                    "{name} after {edit:?}: full {:?}, live {:?}",
                    full.err(),
                    live.err()
                ),
            }
            done += 1;
            applied += 1;
        }
    }
    eprintln!(
        "{applied} edits on {} games re-grounded like full groundings, {patched} by patching the ground game, {in_order} texts spliced ({failing} made both stop; {invalid} invalid edited games skipped)",
        GAMES.len()
    );
    assert!(applied >= 200);
    // Both ways of re-grounding are exercised: patching and the whole ground stage.
    assert!(
        patched >= applied / 4 && applied - patched >= applied / 10,
        "{patched} of {applied} patched"
    );
    assert!(
        in_order >= applied / 4 && in_order < applied,
        "{in_order} of {applied} spliced"
    );
}

#[test]
fn every_corpus_game_edited_reads_statement_by_statement_as_a_full_read_does() {
    let Some(corpus) = support::corpus() else {
        return;
    };
    let (mut games, mut versions) = (0, 0);
    for path in support::game_files(&corpus) {
        let text = std::fs::read_to_string(&path).expect("a corpus game");
        let syntax = Syntax::detect(&path, &text);
        let all = statements(&text, syntax);
        let (Some(first), Some(middle)) = (all.first(), all.get(all.len() / 2)) else {
            continue;
        };
        // A statement removed, one moved to the end (every later span shifts), then the game
        // as it was; `read` compares each with a full read.
        let removed = text.replacen(middle.as_str(), "", 1);
        let moved = format!("{}\n{first}\n", text.replacen(first.as_str(), "", 1));
        let mut reader = Reader::new();
        for version in [&text, &removed, &moved, &text] {
            read(&mut reader, version, syntax);
            versions += 1;
        }
        games += 1;
    }
    eprintln!("{games} corpus games, {versions} versions read as full reads read them");
    assert!(games >= 500, "{games} games");
}

/// The project's own example game.
const TICTACTOE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tictactoe.kif");

/// A scratch directory of its own for one test.
fn scratch(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gdlground-edits-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The ground game `gdlground ground` writes for `game`.
fn ground_cli(game: &std::path::Path) -> String {
    let out = support::gdlground(&["ground", game.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Asserts that an edit's line ends with its times: the read of the edited version, then the
/// time from it to the file, with the dataflow's and the ground game's parts.
fn assert_times(line: &str) {
    let times = line.rsplit(" · ").next().unwrap_or_default();
    let number = |text: &str| {
        text.parse::<f64>()
            .map_err(|_| format!("{text:?} in {line}"))
    };
    let (read, rest) = (times
        .strip_prefix("read ")
        .and_then(|t| t.split_once(" ms + ")))
    .unwrap_or_else(|| panic!("no read time first: {line}"));
    let (total, parts) = rest.split_once(" ms (dataflow ").expect(line);
    let (dataflow, grounded) = parts.split_once(" ms; ground game ").expect(line);
    let grounded = grounded.split_once(" ms, ").expect(line).0;
    let [_, total, dataflow, grounded] =
        [read, total, dataflow, grounded].map(|t| number(t).unwrap());
    assert!(
        dataflow <= grounded && grounded <= total,
        "parts beyond the whole: {line}"
    );
}

/// `ground` of the example game with the edit script `script`, written to `out`.
fn run_script(script: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    let (script, out) = (script.to_str().unwrap(), out.to_str().unwrap());
    support::gdlground(&["ground", TICTACTOE, "--edits", script, "-o", out])
}

#[test]
fn an_edit_script_rewrites_the_output_after_each_edit() {
    let dir = scratch("script");
    let script = dir.join("edits.txt");
    std::fs::write(
        &script,
        "# goal 50 becomes 40, then a pass move comes\n= goal\n- (<= (goal xplayer 50) (not (line x)) (not (line o))\n    (not open))\n+ (<= (goal xplayer 40) (not (line x)) (not (line o)) (not open))\n= pass\n+ (<= (legal ?p pass) (role ?p))\n",
    )
    .unwrap();
    let out = dir.join("out.kif");
    let run = run_script(&script, &out);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains("goal: P+ rules +1/-1 · ground rules +1/-1 · facts +0/-0 · atoms +1/-1"),
        "{stderr}"
    );
    assert!(stderr.contains("pass: P+ rules +1/-0"), "{stderr}");
    for line in stderr.lines().filter(|l| l.contains("P+ rules")) {
        assert_times(line);
    }
    // The same game edited by hand, grounded from scratch.
    let edited = std::fs::read_to_string(TICTACTOE)
        .unwrap()
        .replace("(goal xplayer 50)", "(goal xplayer 40)")
        + "(<= (legal ?p pass) (role ?p))\n";
    let by_hand = dir.join("edited.kif");
    std::fs::write(&by_hand, edited).unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), ground_cli(&by_hand));
    // A statement the game does not have: located error, exit 1.
    std::fs::write(&script, "= again\n- (<= (goal xplayer 77) (line x))\n").unwrap();
    let run = support::gdlground(&["ground", TICTACTOE, "--edits", script.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("edits.txt:2:3: error: again: the game has no statement"),
        "{stderr}"
    );
}

/// After each edit of a script, the output is the edited game's ground game, written whole
/// or only where it differs from the text the file written before last holds: lines removed
/// and added back, a goal's value changed and changed back. Each prefix of the script is run
/// on its own, and its output compared with a fresh grounding of the game edited by hand.
#[test]
fn each_edit_of_a_script_leaves_the_output_a_fresh_grounding_writes() {
    let dir = scratch("prefixes");
    let diagonal =
        "(<= (diagonal ?x) (true (cell 1 3 ?x)) (true (cell 2 2 ?x)) (true (cell 3 1 ?x)))";
    let noop = "(<= (legal xplayer noop) (true (control oplayer)))";
    let (goal, changed) = (
        "(<= (goal xplayer 100) (line x))",
        "(<= (goal xplayer 90) (line x))",
    );
    // Each edit's script lines, and what it does to the game's text.
    type Step<'a> = (String, Box<dyn Fn(String) -> String + 'a>);
    let edits: Vec<Step> = vec![
        (
            format!("- {diagonal}"),
            Box::new(|t: String| t.replace(diagonal, "")),
        ),
        (format!("+ {diagonal}"), Box::new(|t| t + diagonal + "\n")),
        (
            format!("- {goal}\n+ {changed}"),
            Box::new(|t| t.replace(goal, changed)),
        ),
        (format!("- {noop}"), Box::new(|t| t.replace(noop, ""))),
        (format!("+ {noop}"), Box::new(|t| t + noop + "\n")),
        (
            format!("- {changed}\n+ {goal}"),
            Box::new(|t| t.replace(changed, goal)),
        ),
    ];
    let mut text = std::fs::read_to_string(TICTACTOE).unwrap();
    for (k, (_, edit)) in edits.iter().enumerate() {
        text = edit(text);
        let script: String = (edits[..=k].iter().enumerate())
            .map(|(i, (lines, _))| format!("= edit {i}\n{lines}\n"))
            .collect();
        let script_path = dir.join("edits.txt");
        std::fs::write(&script_path, script).unwrap();
        let out = dir.join("out.kif");
        let run = run_script(&script_path, &out);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let by_hand = dir.join("edited.kif");
        std::fs::write(&by_hand, &text).unwrap();
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            ground_cli(&by_hand),
            "after edit {k}"
        );
    }
}

/// `--diff` prints, after each edit's line, the ground facts and rules it removed and
/// added: a changed goal's rule, and the facts of a relation the game did not have before.
#[test]
fn an_edit_script_with_diff_prints_what_went_and_came() {
    let dir = scratch("diff");
    let script = dir.join("edits.txt");
    let (fifty, forty) = (
        "(<= (goal xplayer 50) (not (line x)) (not (line o)) (not open))",
        "(<= (goal xplayer 40) (not (line x)) (not (line o)) (not open))",
    );
    let ready = "(<= (ready ?p) (role ?p))";
    let text =
        format!("= down\n- {fifty}\n+ {forty}\n= ready\n+ {ready}\n= not ready\n- {ready}\n");
    std::fs::write(&script, text).unwrap();
    let out = dir.join("out.kif");
    let (script, out) = (script.to_str().unwrap(), out.to_str().unwrap());
    let run = support::gdlground(&["ground", TICTACTOE, "--edits", script, "--diff", "-o", out]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .skip_while(|l| !l.starts_with("down:"))
        .collect();
    let expected = [
        format!("- {fifty}"),
        format!("+ {forty}"),
        "+ (ready xplayer)".into(),
        "+ (ready oplayer)".into(),
        "- (ready xplayer)".into(),
        "- (ready oplayer)".into(),
    ];
    let printed = [lines[1], lines[2], lines[4], lines[5], lines[7], lines[8]];
    assert_eq!(printed, expected, "{stderr}");
    assert!(
        lines[3].starts_with("ready:") && lines[6].starts_with("not ready:"),
        "{stderr}"
    );
}

/// A running `watch`, killed if the test ends first (a failed assertion would otherwise leave
/// it running, holding the test harness's output open).
struct Watch(std::process::Child);

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `watch GAME ARGS…` started (looking at the file every 20 ms unless `args` say otherwise),
/// and the lines of its standard error as they come.
fn watch(game: &std::path::Path, args: &[&str]) -> (Watch, Lines) {
    use std::io::BufRead;
    let interval = match args.contains(&"--interval") {
        true => &[][..],
        false => &["--interval", "20"][..],
    };
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gdlground"))
        .args(["watch", game.to_str().unwrap()])
        .args(interval)
        .args(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (send, lines) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = send.send(line);
        }
    });
    (Watch(child), Lines(lines))
}

/// A child's standard error, line by line.
struct Lines(std::sync::mpsc::Receiver<String>);

impl Lines {
    /// The lines up to the first that contains `needle` (a minute at most).
    fn wait_for(&self, needle: &str) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let mut seen = String::new();
        while let Ok(line) = (self.0).recv_timeout(deadline - std::time::Instant::now()) {
            seen.push_str(&line);
            seen.push('\n');
            if line.contains(needle) {
                return seen;
            }
        }
        panic!("no `{needle}` from watch; it said:\n{seen}");
    }
}

/// The names in `dir`, sorted.
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<_> = (std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A scratch directory for `test` with the example game in it, as `game.kif`: the directory,
/// the game's path, the output's (`game.ground.kif`) and the game's text.
fn watched_game(
    test: &str,
) -> (
    std::path::PathBuf,
    std::path::PathBuf,
    std::path::PathBuf,
    String,
) {
    let dir = scratch(test);
    let (game, out) = (dir.join("game.kif"), dir.join("game.ground.kif"));
    let original = std::fs::read_to_string(TICTACTOE).unwrap();
    std::fs::write(&game, &original).unwrap();
    (dir, game, out, original)
}

/// `watch GAME ARGS…` started on `game` (whose text is `original`), after its first save:
/// a goal's value changed.
fn watch_past_a_save(game: &std::path::Path, original: &str, args: &[&str]) -> (Watch, Lines) {
    let (child, lines) = watch(game, args);
    lines.wait_for("watching");
    let edited = original.replace("(goal xplayer 50)", "(goal xplayer 40)");
    std::fs::write(game, edited).unwrap();
    lines.wait_for("save 1:");
    (child, lines)
}

#[test]
fn watch_regrounds_on_save_and_keeps_the_last_good_output_on_errors() {
    let (dir, game, out, original) = watched_game("watch");
    let (mut child, lines) = watch(&game, &["--saves", "3"]);
    let wait_for = |needle: &str| lines.wait_for(needle);
    wait_for("watching");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), ground_cli(&game));
    // A save: one line, and the output follows.
    let edited = original.replace("(goal xplayer 50)", "(goal xplayer 40)");
    std::fs::write(&game, &edited).unwrap();
    let said = wait_for("save 1:");
    assert!(said.contains("rules +1/-1"), "{said}");
    assert_times(&said);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), ground_cli(&game));
    let good = std::fs::read_to_string(&out).unwrap();
    // A broken save: the error with its location; the last good output stays.
    std::fs::write(
        &game,
        edited.replace("(<= terminal (line x))", "(<= terminal (line ?x)"),
    )
    .unwrap();
    let said = wait_for("keeps the last good ground game");
    assert!(said.contains("game.kif:"), "{said}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), good);
    // Fixed: the output comes back, for the fixed game.
    let fixed = edited.replace("(<= terminal (line x))", "(<= terminal (line o) (line x))");
    std::fs::write(&game, &fixed).unwrap();
    wait_for("save 3:");
    assert!(child.0.wait().unwrap().success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), ground_cli(&game));
    // The text the output's last write swapped out has gone with the run.
    assert_eq!(names_in(&dir), ["game.ground.kif", "game.kif"]);
}

/// With the file looked at only every minute, `watch` still sees each save at once (inotify),
/// and says what happened on each: a save that is not UTF-8, the file's deletion, its return.
#[test]
fn watch_hears_every_save_at_once_and_says_what_happened() {
    let (_dir, game, out, original) = watched_game("watch-events");
    let (_child, lines) = watch(&game, &["--interval", "60000"]);
    lines.wait_for("watching");
    let good = std::fs::read_to_string(&out).unwrap();
    let mut latin = original.clone().into_bytes();
    latin.extend_from_slice(b"(succ caf\xe9 tea)\n");
    std::fs::write(&game, latin).unwrap();
    let said = lines.wait_for("keeps the last good ground game");
    assert!(said.contains("not valid UTF-8 here (byte 0xe9)"), "{said}");
    std::fs::remove_file(&game).unwrap();
    let said = lines.wait_for("keeps the last good ground game");
    assert!(
        said.contains("the file is gone; watching for it to come back"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), good);
    std::fs::write(&game, &original).unwrap();
    lines.wait_for("save 2:");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), ground_cli(&game));
}

/// Fills the spare text beside `watch`'s output in `dir` with `x`s, its length kept (and its
/// time of last change, if `keep_time`: then `watch` still takes it for the text it wrote).
fn spoil_spare(dir: &std::path::Path, keep_time: bool) {
    use std::io::Write;
    let spare = (names_in(dir).into_iter())
        .find(|n| n.starts_with(".game.ground.kif.tmp-"))
        .expect("a spare text kept beside the output");
    let spare = dir.join(spare);
    let before = std::fs::metadata(&spare).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(&spare)
        .unwrap();
    file.write_all(&vec![b'x'; before.len() as usize]).unwrap();
    if keep_time {
        file.set_modified(before.modified().unwrap()).unwrap();
    }
}

/// That `out`, written over a spare that [`spoil_spare`] filled with `x`s, got only the line
/// of `game`'s goal of value `value`: the output is as long as `game`'s ground game, and
/// `x`s but for that line.
fn assert_only_goal_written(out: &std::path::Path, game: &std::path::Path, value: u32) {
    let written = std::fs::read_to_string(out).unwrap();
    assert_eq!(written.len(), ground_cli(game).len());
    let goal = format!("(<= (goal xplayer {value}) (not (line x)) (not (line o)) (not open))\n");
    assert!(
        written.contains(&goal) && written.replace(&goal, "").bytes().all(|b| b == b'x'),
        "{written}"
    );
}

/// The text swapped out beside the output (the text before last) is written over only where
/// it differs from the next text, while the file has the stamp it had when `watch` wrote it
/// (inode, length, time of last change): a text changed behind its back with its time put
/// back is trusted, and only the changed goal's line written into it; a text changed since,
/// as long as it was, is written whole.
#[test]
fn watch_writes_over_the_text_before_last_only_where_it_differs_while_it_is_unchanged() {
    let (dir, game, out, original) = watched_game("watch-spare");
    let (mut child, lines) = watch_past_a_save(&game, &original, &["--saves", "4"]);
    spoil_spare(&dir, true);
    std::fs::write(&game, &original).unwrap();
    lines.wait_for("save 2:");
    assert_only_goal_written(&out, &game, 50);
    // Over the text of the first save: the file is right again.
    let edited = original.replace("(goal xplayer 50)", "(goal xplayer 40)");
    std::fs::write(&game, edited).unwrap();
    lines.wait_for("save 3:");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), ground_cli(&game));
    spoil_spare(&dir, false);
    std::fs::write(&game, &original).unwrap();
    lines.wait_for("save 4:");
    assert!(child.0.wait().unwrap().success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), ground_cli(&game));
}

/// `watch` writes its first text into the spare as well, so that the first save, too, goes
/// over a text it shares lines with: only the changed goal's line is written (the spare
/// spoiled with its time put back shows it), and the save after it makes the file right.
#[test]
fn watch_writes_its_first_save_only_where_it_differs_from_the_first_text() {
    let (dir, game, out, original) = watched_game("watch-first-spare");
    let (mut child, lines) = watch(&game, &["--saves", "2"]);
    lines.wait_for("watching");
    spoil_spare(&dir, true);
    let edited = original.replace("(goal xplayer 50)", "(goal xplayer 40)");
    std::fs::write(&game, edited).unwrap();
    lines.wait_for("save 1:");
    assert_only_goal_written(&out, &game, 40);
    std::fs::write(&game, &original).unwrap();
    lines.wait_for("save 2:");
    assert!(child.0.wait().unwrap().success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), ground_cli(&game));
}

#[test]
fn watch_started_on_a_broken_game_grounds_the_first_save_that_fixes_it() {
    let dir = scratch("watch-broken-start");
    let game = dir.join("game.kif");
    let out = dir.join("game.ground.kif");
    let original = std::fs::read_to_string(TICTACTOE).unwrap();
    let broken = original.replace("(<= terminal (line x))", "(<= terminal (line ?x)");
    std::fs::write(&game, &broken).unwrap();
    let (mut child, lines) = watch(&game, &["--saves", "2"]);
    // The error with its location, and no output yet.
    let said = lines.wait_for("watching it for a save that fixes it");
    assert!(said.contains("game.kif:"), "{said}");
    assert!(!out.exists());
    // Still broken: said again, still no output.
    std::fs::write(
        &game,
        broken.replace("(goal xplayer 50)", "(goal xplayer 40)"),
    )
    .unwrap();
    let said = lines.wait_for("not re-grounded");
    assert!(said.contains("is written once a version grounds"), "{said}");
    assert!(!out.exists());
    // Fixed: grounded afresh, and the output is the fixed game's.
    std::fs::write(&game, &original).unwrap();
    lines.wait_for("save 2: grounded afresh");
    assert!(child.0.wait().unwrap().success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), ground_cli(&game));
    assert_eq!(names_in(&dir), ["game.ground.kif", "game.kif"]);
}

#[test]
fn watch_stops_on_ctrl_c_and_leaves_only_its_output() {
    let (dir, game, _, original) = watched_game("watch-interrupted");
    let (mut child, lines) = watch_past_a_save(&game, &original, &[]);
    // While it runs, the text before the last write is kept beside the output, to be written
    // over by the next one.
    assert_eq!(names_in(&dir).len(), 3, "{:?}", names_in(&dir));
    // SAFETY: kill only sends a signal to the child, which is still running (it ends only
    // on a signal).
    assert_eq!(unsafe { libc::kill(child.0.id() as i32, libc::SIGINT) }, 0);
    let said = lines.wait_for("stopped");
    assert!(said.contains("has the last good ground game"), "{said}");
    assert_eq!(child.0.wait().unwrap().code(), Some(130));
    assert_eq!(names_in(&dir), ["game.ground.kif", "game.kif"]);
}

/// A small game whose ground program has atoms that are in S* but false: `d(X)` is a derived
/// fact (its negation of `q`, which nothing derives, is dropped), so every rule of `w(X)`
/// dies, and the second rule of `u` too. (It is no certain atom, which S* would already
/// decide: it negates a dynamic relation.) `big` gives the game enough instances that an
/// edit touching a few of them is patched.
const FALSE_ATOMS: &str = "
(role r)
(num 1) (num 2) (num 3) (num 4) (num 5) (num 6) (num 7) (num 8) (num 9) (num 10)
(p a) (p b)
(init (on a))
(init (cell 1)) (init (cell 2)) (init (cell 3)) (init (cell 4)) (init (cell 5))
(init (cell 6)) (init (cell 7)) (init (cell 8)) (init (cell 9)) (init (cell 10))
(<= (next (cell ?x)) (true (cell ?x)))
(<= (big ?x ?y) (true (cell ?x)) (num ?y))
(<= (d ?x) (p ?x) (not (q ?x)))
(<= (q ?x) (true (void ?x)))
(<= (d ?x) (true (on ?x)))
(<= (w ?x) (p ?x) (not (d ?x)))
(<= (u) (true (on a)))
(<= (u) (p a) (not (d a)))
(<= (legal r (go ?x)) (w ?x))
(<= (legal r stay) (u))
(<= (legal r noop) (true (on a)))
(<= (next (on ?x)) (does r (go ?x)))
(<= (next (on a)) (does r noop))
(<= terminal (true (on b)))
(<= (goal r 100) (true (on b)))
(<= (goal r 0) (not (true (on b))))
";

/// Edits that make an atom that rules read false, or make a false one derivable again,
/// change rules the edit does not touch: the session re-grounds them like a full grounding
/// (and patches an edit that does neither).
#[test]
fn edits_that_make_read_atoms_false_or_true_again_reground_like_a_full_grounding() {
    let patchable = "(<= (goal r 50) (true (on a)) (big 2 2))";
    let versions = [
        // A new rule that reads the false `w(a)`, then gone again.
        FALSE_ATOMS.replace("(role r)", "(role r) (<= (legal r (jump ?x)) (w ?x))"),
        FALSE_ATOMS.to_string(),
        // `w(a)` derivable again, then false again: `legal(r, go(a))` comes and goes.
        FALSE_ATOMS.replace("(role r)", "(role r) (<= (w ?x) (true (on ?x)))"),
        FALSE_ATOMS.to_string(),
        // `u` loses its only live rule: `legal(r, stay)` goes.
        FALSE_ATOMS.replace("(<= (u) (true (on a)))", ""),
        FALSE_ATOMS.to_string(),
        // Neither: patched.
        FALSE_ATOMS.replace("(role r)", &format!("(role r) {patchable}")),
    ];
    let patched = sessions_match(FALSE_ATOMS, &versions);
    assert!(patched[6].0, "the last version is patched");
}

/// An edit whose instances simplify to the rules the old ones gave (a literal that always
/// holds added to a rule, then taken away) changes nothing in the ground game: it is patched
/// with an empty delta and no previous version (the session keeps its rules rather than
/// copying them), and the edits after it still patch and re-ground like full groundings.
#[test]
fn edits_that_give_the_same_ground_rules_keep_them() {
    let rule = "(<= (legal r noop) (true (on a)))";
    let same = FALSE_ATOMS.replace(rule, "(<= (legal r noop) (true (on a)) (num 3))");
    let goal = "(role r) (<= (goal r 50) (true (on a)) (big 2 2))";
    let versions = [
        same.clone(),
        FALSE_ATOMS.to_string(),
        same.replace("(role r)", goal),
        FALSE_ATOMS.replace("(role r)", goal),
    ];
    let outcomes = sessions_match(FALSE_ATOMS, &versions);
    assert_eq!(
        outcomes,
        [(true, true), (true, true), (true, false), (true, true)],
        "(patched, same ground game) per version"
    );
}

/// Certain atoms (true in every state) in a session: with `d(X) :- p(X)`, `d` is certain and
/// `w(X) :- p(X) & ~d(X)` has no instance in S*; edits that take a `p` fact away, bring it
/// back, and give `d` a certain rule more change which instances S* has, and the session
/// follows the full grounding.
#[test]
fn edits_that_change_certain_atoms_reground_like_a_full_grounding() {
    let certain = FALSE_ATOMS.replace("(p ?x) (not (q ?x))", "(p ?x)");
    let versions = [
        certain.replace("(p a) (p b)", "(p b)"),
        certain.clone(),
        certain.replace("(role r)", "(role r) (p c) (<= (d ?x) (num ?x))"),
        certain.replace("(role r)", "(role r) (p c) (<= (w ?x) (p ?x) (not (d c)))"),
    ];
    sessions_match(&certain, &versions);
}

/// The static relations are computed outside the live dataflow, stratified by negation: an
/// edit that stacks more negation among them re-grounds like a full grounding (rebuilt: the
/// relations computed exactly changed), and the edits after it patch again.
#[test]
fn edits_that_stack_static_negation_reground_like_a_full_grounding() {
    let strata = "(role r) (t0 1) (<= (t1 ?x) (num ?x) (not (t0 ?x)))
        (<= (t2 ?x) (num ?x) (not (t1 ?x))) (<= (t3 ?x) (num ?x) (not (t2 ?x)))
        (<= (legal r (pick ?x)) (t3 ?x) (true (on a)))";
    let deeper = FALSE_ATOMS.replace("(role r)", strata);
    let goal = "(role r) (<= (goal r 50) (true (on a)) (big 2 2))";
    let versions = [
        deeper.clone(),
        FALSE_ATOMS.to_string(),
        deeper.clone(),
        deeper.replace("(role r)", goal),
    ];
    let outcomes = sessions_match(FALSE_ATOMS, &versions);
    assert!(!outcomes[0].0, "the deeper version is rebuilt");
    assert!(outcomes[3].0, "an edit after it is patched");
}

/// A static fact added and removed again is a rule of P+ that came and went, though the
/// dataflow is given the static atoms rather than the rules that make them.
#[test]
fn a_static_fact_edit_counts_as_a_rule_of_p_plus() {
    let first = program(FALSE_ATOMS, Syntax::Kif).expect("a valid game");
    let more = FALSE_ATOMS.replace("(num 10)", "(num 10) (num 11)");
    let more = program(&more, Syntax::Kif).expect("a valid game");
    let mut session = Session::start(&first, &options(1)).expect("grounds");
    let added = session.apply(&more).expect("re-grounds").edit;
    assert_eq!((added.rules_added, added.rules_removed), (1, 0));
    let removed = session.apply(&first).expect("re-grounds").edit;
    assert_eq!((removed.rules_added, removed.rules_removed), (0, 1));
}

/// A session's first edit plans only the rules it changed, as later edits do: the start
/// leaves the plans of its version remembered for the updates (it planned every rule afresh).
#[test]
fn the_first_edit_plans_only_the_rules_it_changed() {
    let game = std::fs::read_to_string(TICTACTOE).unwrap();
    let (goal, changed) = ("(goal xplayer 100)", "(goal xplayer 90)");
    assert!(game.contains(goal));
    let first = program(&game, Syntax::Kif).expect("a valid game");
    let edited = program(&game.replace(goal, changed), Syntax::Kif).expect("a valid game");
    let mut session = Session::start(&first, &options(1)).expect("grounds");
    let rules = first.rules.len();
    for (version, name) in [(&edited, "the edit"), (&first, "the edit undone")] {
        let edit = session.apply(version).expect("re-grounds").edit;
        assert_eq!((edit.rules_added, edit.rules_removed), (1, 1), "{name}");
        assert_eq!(edit.rules_planned, 1, "{name}: of {rules} rules");
    }
}

/// The rules of relations that only goal and terminal rules read are evaluated above the
/// live dataflow: editing them does not run it. Edits that make such a relation read by a
/// rule below (and so move it into the dataflow) and back, edits of a relation in the middle
/// of them, and edits below that change the atoms they read re-ground like full groundings.
#[test]
fn edits_of_rules_above_the_dataflow_reground_like_a_full_grounding() {
    let game = std::fs::read_to_string(TICTACTOE).unwrap();
    let goal = "(<= (goal xplayer 100) (line x))";
    let line = "(<= (line ?x) (diagonal ?x))";
    let next = "(<= (next (cell ?m ?n o)) (does oplayer (mark ?m ?n)) (true (cell ?m ?n b)))";
    let claim = "(<= (legal xplayer (claim ?g)) (goal xplayer ?g) (true (control xplayer)))";
    let never = "(<= terminal (true (cell 1 1 x)) (not (index 4)))";
    let versions = [
        game.replace(goal, "(<= (goal xplayer 90) (line x))"),
        game.clone(),
        game.replace(line, ""),
        game.replace(goal, &format!("{goal} {claim}")),
        game.clone(),
        game.replace(next, ""),
        game.clone(),
        game.replace(goal, &format!("{goal} {never}")),
        game.clone(),
    ];
    let ran = sessions_match_noting(&game, &versions, |update| update.edit.dataflow_ran);
    let expected = [false, false, false, true, true, true, true, false, false];
    assert_eq!(ran, expected, "whether each edit ran the live dataflow");
}

/// A game with two branches of derived static relations: `pair` and `far` (with
/// negation over `near`) read `num`, `colpair` reads `col` alone, `cell` reads both.
const BRANCHES: &str = "
(role r)
(num 1) (num 2) (num 3)
(col a) (col b)
(near 1 2) (near 2 3)
(<= (pair ?x ?y) (num ?x) (num ?y) (distinct ?x ?y))
(<= (far ?x ?y) (pair ?x ?y) (not (near ?x ?y)))
(<= (cell ?c ?x) (col ?c) (num ?x))
(<= (colpair ?c ?d) (col ?c) (col ?d) (distinct ?c ?d))
(init (at 1))
(<= (legal r (go ?x ?y)) (true (at ?x)) (far ?x ?y))
(<= (legal r (paint ?c ?x)) (true (at ?x)) (cell ?c ?x))
(<= (legal r (swap ?c ?d)) (colpair ?c ?d) (true (at 1)))
(<= (next (at ?y)) (does r (go ?x ?y)))
(<= (next (at ?x)) (does r (paint ?c ?x)))
(<= (next (at ?x)) (true (at ?x)) (does r (swap ?c ?d)))
(<= terminal (true (at 3)))
(goal r 100)
";

/// A static edit computes anew only the exact relations it reaches (their rules changed, or
/// they read one that is reached); the others keep their rows, translated into the new
/// version's ids even when new functors moved them. Each version re-grounds like a full
/// grounding.
#[test]
fn static_edits_compute_again_only_the_relations_they_reach() {
    let versions = [
        // `col` only: `pair` and `far` are kept.
        BRANCHES.replace("(col b)", "(col b) (col c)"),
        BRANCHES.to_string(),
        // `near` only, with a constant new to the game, first in the text (which moves the
        // functor tokens of the kept rows): `pair`, `cell`, `colpair` kept.
        format!(
            "(near 3 aa) {}",
            BRANCHES.replace("(near 2 3)", "(near 2 3) (near 3 1)")
        ),
        BRANCHES.to_string(),
        // `num` reaches all but `colpair`.
        BRANCHES.replace("(num 3)", "(num 3) (num 4)"),
        // Back from `(num 4)`, and a derived rule in the middle changed: `colpair` kept.
        BRANCHES.replace("(not (near ?x ?y))", "(not (near ?y ?x))"),
        // That rule back: `far` alone is reached.
        BRANCHES.to_string(),
        // A new exact relation: all are computed again.
        BRANCHES.replace("(col b)", "(col b) (mark a)"),
    ];
    let kept = sessions_match_noting(BRANCHES, &versions, |update| update.edit.statics_kept);
    assert_eq!(
        kept,
        [2, 2, 3, 3, 1, 1, 3, 0],
        "exact relations that kept their rows"
    );
}

/// A game whose exact relation `mark` reads `cell`, whose rows hold functors.
const MARKS: &str = "
(role r)
(col a) (col b)
(num 1) (num 2)
(flag 1)
(<= (cell ?c ?x) (col ?c) (num ?x))
(<= (mark ?c ?x) (cell ?c ?x) (flag ?x))
(init (at 1))
(<= (legal r (paint ?c ?x)) (true (at ?x)) (mark ?c ?x))
(<= (next (at ?x)) (does r (paint ?c ?x)))
(<= terminal (true (at 2)))
(goal r 100)
";

/// The rows a static edit keeps are read in the new version's ids: `cell` is kept while
/// `mark`, which reads it, is computed again, once with a constant new to the game first in
/// the text (which moves the functor tokens of `cell`'s rows), once back, and once with the
/// same ids (the last version's rows taken as they are); then a version moves the tokens
/// with no static edit, and the next one's static edit reads `cell` in the moved ids.
#[test]
fn kept_rows_are_read_in_the_ids_of_the_version_that_reads_them() {
    let versions = [
        format!(
            "(flag aa) {}",
            MARKS.replace("(flag 1)", "(flag 1) (flag 2)")
        ),
        MARKS.to_string(),
        MARKS.replace("(flag 1)", "(flag 2)"),
        MARKS.to_string(),
        format!("(<= terminal (true (aa 1))) {MARKS}"),
        format!(
            "(<= terminal (true (aa 1))) {}",
            MARKS.replace("(flag 1)", "(flag 2)")
        ),
    ];
    let kept = sessions_match_noting(MARKS, &versions, |update| update.edit.statics_kept);
    assert_eq!(
        kept,
        [1, 1, 1, 1, 0, 1],
        "exact relations that kept their rows"
    );
}

/// Starts a session on `first`, applies each of `versions` in turn, and asserts that the
/// ground game after each equals a full grounding of that version; returns for each version
/// whether it was patched and whether the session said its ground game was the previous one
/// (an empty delta and no previous version).
fn sessions_match(first: &str, versions: &[String]) -> Vec<(bool, bool)> {
    sessions_match_noting(first, versions, |update| {
        let same = update.previous.is_none() && update.delta.is_empty();
        (update.patched, same)
    })
}

/// [`sessions_match`], noting `note` of each version's update.
fn sessions_match_noting<T>(
    first: &str,
    versions: &[String],
    note: impl Fn(&Update<'_>) -> T,
) -> Vec<T> {
    let first = program(first, Syntax::Kif).expect("a valid game");
    let mut session = Session::start(&first, &options(1)).expect("grounds");
    let mut notes = Vec::new();
    for (i, text) in versions.iter().enumerate() {
        let next = program(text, Syntax::Kif).expect("a valid game");
        let full = ground(&next, &options(1)).expect("grounds");
        let update = session.apply(&next).expect("re-grounds");
        let (live, full) = (written(update.grounded, &next), written(&full, &next));
        assert!(live == full, "version {i}:\nlive:\n{live}\nfull:\n{full}");
        notes.push(note(&update));
    }
    notes
}
