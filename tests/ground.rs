//! End-to-end tests of `gdlground ground` and `atoms` on the bundled examples: counts, worker
//! determinism, limits, and that a failed run leaves no output file.

use gdlground::oracle::process;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod support;

use support::gdlground;

/// The path of a file under the crate.
fn here(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(rel)
        .display()
        .to_string()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gdlground-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

#[test]
fn tictactoe_counts_match_the_known_game() {
    let out = gdlground(&[
        "ground",
        &here("examples/tictactoe.kif"),
        "--stats=json",
        "-o",
        "-",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats = String::from_utf8_lossy(&out.stderr);
    // 27 cells and 2 control fluents; 9 marks and a noop per role; S* as gringo computes it.
    for expected in ["\"bases\": 29", "\"actions\": 20", "\"atoms\": 197"] {
        assert!(stats.contains(expected), "{expected} missing in {stats}");
    }
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text
        .contains("(<= (legal xplayer (mark 1 1)) (true (control xplayer)) (true (cell 1 1 b)))"));
    assert!(!text.contains("?"), "a ground program has no variables");
}

#[test]
fn the_infix_game_grounds_to_the_same_program_as_the_kif_one() {
    let kif = gdlground(&["ground", &here("examples/tictactoe.kif"), "--format", "kif"]);
    let infix = gdlground(&["ground", &here("examples/tictactoe.pl"), "--format", "kif"]);
    assert!(kif.status.success() && infix.status.success());
    assert_eq!(kif.stdout, infix.stdout);
}

#[test]
fn the_ground_game_is_itself_a_valid_game_that_grounds_to_itself() {
    let dir = scratch("fixpoint");
    let once = dir.join("once.kif");
    let out = gdlground(&[
        "ground",
        &here("examples/tictactoe.kif"),
        "-o",
        once.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let check = gdlground(&["check", once.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let again = gdlground(&["atoms", once.to_str().unwrap()]);
    let original = gdlground(&["atoms", &here("examples/tictactoe.kif")]);
    let (again, original) = (lines(&again.stdout), lines(&original.stdout));
    // The ground game's S* is the original's plus the atoms of its auxiliary relations
    // (projected local variables), which are relations of its own.
    let relation = |atom: &str| {
        let atom = atom.trim_start_matches('(');
        atom.split([' ', ')']).next().unwrap_or(atom).to_string()
    };
    let names: BTreeSet<String> = original.iter().map(|a| relation(a)).collect();
    let extra: Vec<&String> = again.difference(&original).collect();
    assert!(
        original.is_subset(&again) && extra.iter().all(|a| !names.contains(&relation(a))),
        "grounding the ground game keeps S*: {extra:?}"
    );
    assert!(!extra.is_empty(), "tictactoe has a projected literal");
}

/// The lines of a command's output, as a set.
fn lines(out: &[u8]) -> BTreeSet<String> {
    String::from_utf8_lossy(out)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn two_workers_write_byte_identical_output() {
    for game in [
        "examples/tictactoe.kif",
        "examples/nim.pl",
        "examples/blocksworld.pl",
    ] {
        let one = gdlground(&["ground", &here(game), "-w", "1"]);
        let two = gdlground(&["ground", &here(game), "-w", "2"]);
        assert!(
            one.status.success(),
            "{game}: {}",
            String::from_utf8_lossy(&one.stderr)
        );
        assert_eq!(one.stdout, two.stdout, "{game}");
        assert!(!one.stdout.is_empty());
    }
}

/// A game of `n` numbers whose `pair` rule has `n`² ground instances: with `n` in the
/// hundreds, more rules than the writer spells at a time (grounded without demand, since
/// nothing reads `pair`).
fn many_pairs(n: usize) -> String {
    let mut game = String::from(
        "(role p) (init (c 0)) (legal p go) (<= terminal (true (c 1))) (goal p 100)\n\
         (<= (next (c ?y)) (true (c ?x)) (num ?y))\n\
         (<= (pair ?x ?y) (true (c ?x)) (true (c ?y)) (not (does p go)))\n",
    );
    for i in 0..n {
        game.push_str(&format!("(num {i})\n"));
    }
    game
}

#[test]
fn workers_write_byte_identical_output_over_many_writer_parts() {
    let dir = scratch("many-pairs");
    let game = dir.join("pairs.kif");
    std::fs::write(&game, many_pairs(330)).unwrap();
    let game = game.to_str().unwrap();
    let one = gdlground(&["ground", game, "-w", "1", "--stats=json", "--no-demand"]);
    let stats = String::from_utf8_lossy(&one.stderr);
    assert!(one.status.success(), "{stats}");
    let stats: serde_json::Value = serde_json::from_str(&stats).expect("the stats are JSON");
    // Parts of 2^15 rules, part i on thread i mod N: more than three parts, so that each of
    // three threads spells several.
    assert!(stats["rules"].as_u64() > Some(3 << 15), "{stats}");
    let lines = one.stdout.iter().filter(|&&b| b == b'\n').count() as u64;
    let written = stats["facts"].as_u64().zip(stats["rules"].as_u64());
    assert_eq!(
        written.map(|(f, r)| f + r),
        Some(lines),
        "a line per fact and rule"
    );
    for workers in ["2", "3"] {
        let more = gdlground(&["ground", game, "-w", workers, "--no-demand"]);
        assert!(
            more.status.success(),
            "{}",
            String::from_utf8_lossy(&more.stderr)
        );
        assert!(one.stdout == more.stdout, "-w {workers} wrote another text");
    }
}

/// A game whose `word` rule starts with a ground literal, `(true (step 1))`, one row on one
/// worker, and then reads the given `bit` three times: 4³ instances, which several workers
/// share between them (`Pipe::share`).
const WORD: &str = "(role p) (init (step 1)) (legal p go) (<= (next (step 2)) (true (step 1)))
(<= terminal (true (step 2))) (goal p 100)
(<= (word ?a ?b ?c) (true (step 1)) (bit ?a) (bit ?b) (bit ?c))
(bit 0) (bit 1) (bit 2) (bit 3)
";

#[test]
fn workers_share_a_fan_out_from_a_ground_literal_making_each_instance_once() {
    grounds_alike_on_workers("word", WORD, "(<= (word ", 64);
}

/// A game whose `pair` rule is a cross product of two relations derived in the run (a join
/// without a key) and whose `both` rule then joins a derived proposition (a ground literal):
/// on several workers such rules are waiting chains, every worker holding the joined rows and
/// its own source rows, where joins by key would bring every binding to one worker. (The
/// keyless differential joins of runs with rounds, `Placement::Here`, are checked by
/// tests/domain_loop.rs on two workers.)
const CROSS: &str = "(role p) (init (cell 1)) (init (cell 2)) (init (cell 3)) (init (mark a))
(init (mark b)) (init on) (legal p go)
(<= (next (cell ?x)) (true (cell ?x))) (<= (next (mark ?y)) (true (mark ?y)))
(<= (next on) (true on)) (<= flag (true on))
(<= (pair ?x ?y) (true (cell ?x)) (true (mark ?y)))
(<= (both ?x ?y) (pair ?x ?y) flag)
(<= terminal (both 3 b)) (goal p 100)
";

#[test]
fn workers_join_without_a_key_where_the_bindings_are_making_each_instance_once() {
    grounds_alike_on_workers("cross", CROSS, "(<= (both ", 6);
    grounds_alike_on_workers("cross-pair", CROSS, "(<= (pair ", 6);
}

/// A game whose `path` rule joins two relations derived in the run on two variables: on
/// several workers its chain partitions that join by key (each worker indexing its share of
/// the joined relation, the bindings sent where their key's entries are), so a binding and
/// its entries must meet on one worker, and every instance be made once.
const KEYED: &str =
    "(role p) (init (cell 1 2)) (init (cell 2 3)) (init (cell 3 1)) (init (cell 2 1))
(init (cell 1 3)) (init (cell 3 3)) (legal p go) (<= (next (cell ?x ?y)) (true (cell ?x ?y)))
(<= (mark ?x ?y) (true (cell ?x ?y)))
(<= (hop ?x ?y ?z) (true (cell ?x ?y)) (true (cell ?y ?z)))
(<= (path ?x ?y ?z) (hop ?x ?y ?z) (mark ?x ?y))
(<= terminal (path 1 2 3)) (goal p 100)
";

#[test]
fn workers_partition_a_join_on_several_variables_making_each_instance_once() {
    grounds_alike_on_workers("keyed", KEYED, "(<= (path ", 12);
}

/// Grounds `text` (written to a scratch game named `name`) on one, two and three workers:
/// the same text each time, with `count` ground rules whose line starts with `head`, and as
/// many instances from the engine each time, before the ground stage drops repeats (a worker
/// that made another's share as well as its own would show there, not in the text). Without
/// demand: the games' cross products are read by nothing, and demand would leave them out.
fn grounds_alike_on_workers(name: &str, text: &str, head: &str, count: usize) {
    let game = scratch(name).join(format!("{name}.kif"));
    std::fs::write(&game, text).unwrap();
    let loaded = gdlground::read_game(&game, None).expect("the game loads");
    let game = game.to_str().unwrap();
    let one = gdlground(&["ground", game, "-w", "1", "--no-demand"]);
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    let written = String::from_utf8_lossy(&one.stdout);
    let heads = written.lines().filter(|l| l.starts_with(head)).count();
    assert_eq!(heads, count, "{written}");
    let instances = |workers| {
        let options = gdlground::engine::Options {
            workers,
            demand: false,
            ..Default::default()
        };
        let grounded =
            gdlground::ground_with(&loaded.program, &options, &gdlground::Superset::Reachable)
                .expect("the game grounds");
        grounded.instantiation.instances.len()
    };
    let made = instances(1);
    assert!(made >= count, "{made} instances");
    for workers in [2, 3] {
        let workers = workers.to_string();
        let more = gdlground(&["ground", game, "-w", &workers, "--no-demand"]);
        assert!(
            more.status.success(),
            "{}",
            String::from_utf8_lossy(&more.stderr)
        );
        assert!(one.stdout == more.stdout, "-w {workers} wrote another text");
        assert_eq!(instances(workers.parse().unwrap()), made, "-w {workers}");
    }
}

/// Grounds tests/data/growing.kif (a closure that never ends) into a scratch file with
/// `flags`: the exit code and stderr, after checking that the failed run left no file.
fn ground_growing(scratch_name: &str, flags: &[&str]) -> (Option<i32>, String) {
    let target = scratch(scratch_name).join("out.kif");
    let game = here("tests/data/growing.kif");
    let mut args = vec!["ground", &game, "-o", target.to_str().unwrap()];
    args.extend_from_slice(flags);
    let out = gdlground(&args);
    assert!(!target.exists(), "a failed run must leave no output file");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), err)
}

#[test]
fn a_growing_closure_stops_with_an_error_naming_the_relation_and_no_file() {
    let (code, err) = ground_growing("growing", &["--max-depth", "6"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("grows without bound"), "{err}");
    assert!(err.contains("(succ (succ (succ"), "{err}");
}

#[test]
fn a_run_past_the_memory_limit_stops_with_an_error_and_no_file() {
    // Without a depth limit the growing closure would run until the machine runs out.
    let flags = ["--max-depth", "100000000", "--max-memory", "0.001"];
    let (code, err) = ground_growing("memory", &flags);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("more than 1 MiB, the memory limit"), "{err}");
    assert!(err.contains("hint: --max-memory raises it"), "{err}");
}

/// sudoku's static `exactlyFirst` (nine literals over nine digits: 3.9 × 10⁸ instances a
/// rule, read by nine rules) and laikLee_hex's `isList` (lists of up to 25 of 25 elements,
/// spelt out) ran until the memory limit; the estimate before the run stops them at once,
/// at the rule, naming the variables that multiply it, with exit code 2 and no output file.
/// A 16 GiB limit makes the test the same on every machine.
#[test]
fn a_rule_too_large_to_ground_stops_before_the_run_at_the_rule() {
    let dir = scratch("too-large");
    let target = dir.join("out.kif");
    let cases = [
        ("sudoku", "sudoku.kif:", "(9 values) ×"),
        (
            "laikLee_hex",
            "laikLee_hex.kif:263:1: error[E010]",
            "?el1 (25 values) ×",
        ),
    ];
    for (name, at, multiply) in cases {
        let game = here(&format!("../shared/games/base/{name}.kif"));
        let out = target.to_str().unwrap();
        let start = std::time::Instant::now();
        let run = gdlground(&["ground", &game, "-o", out, "--max-memory", "16"]);
        let err = String::from_utf8_lossy(&run.stderr).into_owned();
        assert_eq!(run.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(at) && err.contains("error[E010]"), "{err}");
        assert!(err.contains(multiply), "{name}: {err}");
        assert!(err.contains("times the memory limit"), "{err}");
        assert!(err.contains("hint: "), "{err}");
        assert!(
            start.elapsed().as_secs() < 10,
            "{name}: {:?}",
            start.elapsed()
        );
        assert!(!target.exists(), "a failed run must leave no output file");
    }
}

/// A game whose one join makes 13 M atoms at once (60⁴; dynamic, so that no estimate before
/// the run sees it: see the test above): the engine's workers check the
/// memory between steps, and this step alone goes far past the limit before they do (twice
/// the limit without the watchdog). The watchdog stops the run close to the limit, with the
/// limit's error and no output file, in `ground` and in a live session's first grounding.
/// The peak is measured by `measure-child`, as `bench` measures it.
#[test]
fn one_huge_step_stops_close_to_the_memory_limit() {
    let dir = scratch("huge-step");
    let path = dir.join("huge.kif");
    std::fs::write(&path, support::huge_step_game(60)).expect("the game is written");
    let script = dir.join("edits.txt");
    std::fs::write(&script, "").expect("the edit script is written");
    let target = dir.join("out.kif");
    let binary = env!("CARGO_BIN_EXE_gdlground");
    let (game, out) = (path.to_str().unwrap(), target.to_str().unwrap());
    let limit = ["--max-memory", "0.25", "--max-atoms", "100000000"];
    // A plain grounding, and a live session's first grounding (`--edits`).
    for live in [&[][..], &["--edits", script.to_str().unwrap()][..]] {
        let mut args = vec!["measure-child", "--", binary, "ground", game, "-o", out];
        args.extend_from_slice(&limit);
        args.extend_from_slice(live);
        let run = gdlground(&args);
        let err = String::from_utf8_lossy(&run.stderr).into_owned();
        assert_eq!(run.status.code(), Some(2), "{live:?}: {err}");
        assert!(err.contains("more than 256 MiB, the memory limit"), "{err}");
        assert!(!target.exists(), "a failed run must leave no output file");
        let report = err
            .lines()
            .find_map(|l| l.strip_prefix("%gdlground-measured "));
        let fields: Vec<u64> = (report.expect("the runner's report").split(' '))
            .map(|f| f.parse().expect("a number"))
            .collect();
        let peak_mib = fields[1] / 1024;
        // Without the watchdog: 478–494 MiB; with it: 280–340 MiB (a big buffer's growth
        // can land just past the threshold).
        assert!(
            peak_mib < 256 * 17 / 10,
            "{live:?}: peak {peak_mib} MiB for a 256 MiB limit"
        );
    }
}

/// The smallest `--max-atoms` under which tictactoe grounds at one, two and three workers is
/// the same and no more than its atom count: the workers add their atoms to one shared count
/// (a batch at a time), so the limit does not depend on how they split the atoms. A run the
/// limit stops exits on every worker count, within a minute.
#[test]
fn the_atom_limit_is_reached_at_the_same_count_on_any_number_of_workers() {
    let game = here("examples/tictactoe.kif");
    // Each run under a time limit: a worker left waiting for peers that stopped would
    // otherwise hang the test run.
    let passes = |workers: &str, limit: usize| {
        let (binary, limit) = (env!("CARGO_BIN_EXE_gdlground"), limit.to_string());
        let args = [binary, "ground", &game, "-o", "/dev/null"];
        let argv = [&args[..], &["-w", workers, "--max-atoms", &limit]].concat();
        let argv: Vec<String> = argv.into_iter().map(String::from).collect();
        let run = process::run(&argv, None, Duration::from_secs(60), |mut out| {
            std::io::copy(&mut out, &mut std::io::sink())
        })
        .expect("it runs");
        let err = &run.stderr;
        match run.status.map(|status| status.code()) {
            None => panic!("{argv:?} did not exit within 60 s"),
            Some(Some(0)) => true,
            Some(Some(2)) if err.contains("more atoms than --max-atoms allows") => false,
            _ => panic!("-w {workers} --max-atoms {limit}: {err}"),
        }
    };
    let atoms = String::from_utf8_lossy(&gdlground(&["atoms", &game]).stdout)
        .lines()
        .count();
    let smallest: Vec<usize> = ["1", "2", "3"]
        .iter()
        .map(|workers| {
            let (mut fails, mut passing) = (0, atoms);
            assert!(passes(workers, passing) && !passes(workers, fails));
            while passing - fails > 1 {
                let mid = (fails + passing) / 2;
                *(if passes(workers, mid) {
                    &mut passing
                } else {
                    &mut fails
                }) = mid;
            }
            passing
        })
        .collect();
    assert!(
        smallest[0] > 1 && smallest[0] <= atoms,
        "{smallest:?} of {atoms}"
    );
    assert_eq!(smallest, [smallest[0]; 3], "by worker count");
    // A worker that finds the run stopped by another before it steps drops the dataflow as
    // the others do (it used to wait for them at the end, forever, in about a third of these
    // runs: three workers on fewer cores make the race likely).
    (0..10).for_each(|_| assert!(!passes("3", 1)));
}

#[test]
fn a_passed_deadline_exits_with_its_own_code_and_no_file() {
    let (code, err) = ground_growing("deadline", &["--deadline", "0", "--max-depth", "100000"]);
    assert_eq!(code, Some(3), "{err}");
}

#[test]
fn a_rejected_game_exits_1_with_a_located_error() {
    let dir = scratch("rejected");
    let game = dir.join("bad.kif");
    std::fs::write(
        &game,
        "(role r)\n(<= (legal r ?m) (not (p ?m)))\n(goal r 1)\nterminal\n(p a)\n",
    )
    .unwrap();
    let out = gdlground(&["ground", game.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.kif:2:"), "{err}");
    assert!(err.contains("error[E002]"), "{err}");
}

#[test]
fn json_output_lists_atoms_facts_and_rules() {
    let out = gdlground(&["ground", &here("examples/nim.pl"), "--format", "json"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for key in ["\"atoms\"", "\"facts\"", "\"rules\"", "\"stats\""] {
        assert!(text.contains(key), "{key}");
    }
}

/// GDL.md §2: `does(R,M) :- legal(R,M)` is part of the relaxed program even when no rule reads
/// `does`: the moves are in S* (and counted as actions) all the same.
#[test]
fn moves_are_in_the_superset_when_no_rule_reads_does() {
    let dir = scratch("no-does");
    let game = dir.join("counter.kif");
    std::fs::write(
        &game,
        "(role c) (init (step 0)) (succ 0 1) (succ 1 2)
         (<= (legal c tick) (true (step ?x)))
         (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
         (<= terminal (true (step 2))) (goal c 100)",
    )
    .expect("game written");
    let out = gdlground(&["atoms", &game.display().to_string()]);
    let atoms = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(atoms.lines().any(|l| l == "(does c tick)"), "{atoms}");
}

/// A negation decided by certain atoms (`crate::analysis::certain`): `link(X,Y)` holds in
/// every state for neighbouring cells (its first rule reads static relations only), so
/// `far(X,Y)` is never derived for them and is not in S*, while farther pairs are (`link`
/// between them needs an open cell); the domain-graph loop decides the same, and the game
/// validates.
#[test]
fn certain_atoms_decide_negations_of_dynamic_relations() {
    let dir = scratch("certain");
    let game = dir.join("corridor.kif");
    std::fs::write(
        &game,
        "(role w) (init (wall 2)) (cell 1) (cell 2) (cell 3) (nb 1 2) (nb 2 3)
         (<= (legal w (build ?c)) (cell ?c))
         (<= (next (wall ?c)) (does w (build ?c)))
         (<= (open ?c) (cell ?c) (not (true (wall ?c))))
         (<= (link ?x ?y) (nb ?x ?y))
         (<= (link ?x ?z) (nb ?x ?y) (open ?y) (link ?y ?z))
         (<= (far ?x ?y) (cell ?x) (cell ?y) (distinct ?x ?y) (not (link ?x ?y)))
         (<= (goal w 100) (far 1 3)) (<= (goal w 0) (not (far 1 3)))
         (<= terminal (true (wall 3)))",
    )
    .expect("game written");
    let path = game.display().to_string();
    for superset in [&[][..], &["--superset", "domain-loop"][..]] {
        let out = gdlground(&[&["atoms", &path][..], superset].concat());
        let atoms = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let far: Vec<&str> = atoms.lines().filter(|l| l.starts_with("(far ")).collect();
        assert_eq!(
            far,
            ["(far 1 3)", "(far 2 1)", "(far 3 1)", "(far 3 2)"],
            "{superset:?}"
        );
    }
    let out = gdlground(&["validate", &path, "--playouts", "20", "--seed", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A grounding records its stage and the atoms it derives in the `Progress` it is given
/// (what `ground`'s status line shows on a terminal): at the end it is building the ground
/// program, having derived at least the atoms of S* that no fact gives (more when a static
/// relation is computed in two runs, or split into parts that derive the same atoms).
#[test]
fn a_grounding_records_its_progress() {
    use gdlground::engine::Options;
    use gdlground::progress::{Progress, Stage};
    let path = PathBuf::from(here("examples/tictactoe.kif"));
    let game = gdlground::read_game(&path, None).expect("the example loads");
    let progress = std::sync::Arc::new(Progress::default());
    let options = Options {
        progress: Some(progress.clone()),
        ..Options::default()
    };
    let grounded = gdlground::ground_with(&game.program, &options, &gdlground::Superset::Reachable)
        .expect("the example grounds");
    let (stage, derived) = progress.status();
    assert_eq!(stage, Stage::Ground);
    let atoms = grounded.ground.atoms.len();
    let facts = grounded.ground.facts.len();
    assert!(
        derived >= atoms - facts,
        "{derived} atoms derived, S* has {atoms} with {facts} facts"
    );
}

/// snake2p's `base` is static, so it is given to the second run, and the id of the relation
/// its frame rules derive was once the one `base` has: the run's atoms are under the plan's
/// ids and the given rows under the program's, and mixing them up dropped every `base` atom. Its
/// seven `base` rules make 20 border `w` cells, 16 inner `f` cells and 36 each of `redHead`
/// and `blueHead`: 108 atoms, on any number of workers.
#[test]
fn a_static_relation_keeps_its_atoms_when_a_plan_id_equals_its_id() {
    let game = here("../shared/games/base/snake2p.kif");
    for workers in ["1", "2"] {
        let out = gdlground(&["atoms", &game, "-w", workers]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let base: Vec<&str> = text.lines().filter(|l| l.starts_with("(base ")).collect();
        assert_eq!(base.len(), 108, "-w {workers}");
        assert!(base.contains(&"(base (cell 0 0 w))"), "-w {workers}");
    }
}

/// The stats of `ground GAME --stats=json` with `flags`, parsed.
fn stats_of(game: &str, flags: &[&str]) -> serde_json::Value {
    let mut args = vec!["ground", game, "-o", "/dev/null", "--stats=json"];
    args.extend_from_slice(flags);
    let out = gdlground(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    serde_json::from_str(&stderr).expect("the stats are JSON")
}

/// The atoms `atoms GAME` prints with `flags`, one per line.
fn atoms_of(game: &str, flags: &[&str]) -> Vec<String> {
    let mut args = vec!["atoms", game];
    args.extend_from_slice(flags);
    let out = gdlground(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}

/// tests/data/threats.kif, a cut-down chess whose threat relation draws coordinates freely:
/// with demand (the default) the stats say the atoms are R* and the rules are far fewer than
/// `--no-demand` grounds; `atoms` prints S* and `atoms --relevant` R*, a strict subset of it
/// that lacks only threat atoms.
/// The farmers-like game's goal rules compare three players' money pairwise: one instance
/// per triple of amounts (1.05 M rules) unless the body is cut at the one variable its two
/// comparisons share (27 thousand). The ground game plays as the original.
#[test]
fn a_goal_comparing_three_amounts_pairwise_is_cut_and_stays_small() {
    let game = here("tests/data/farmers.kif");
    let stats = stats_of(&game, &[]);
    let rules = stats["rules"].as_u64().unwrap_or(u64::MAX);
    assert!(rules < 60_000, "{stats}");
    let out = gdlground(&["validate", &game, "--playouts", "5", "--seed", "3"]);
    let (report, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{err}");
    assert!(report.contains("ok: 5 playouts"), "{report}");
}

#[test]
fn demand_restricts_the_threats_and_the_flags_say_so() {
    let game = here("tests/data/threats.kif");
    let (with, without) = (stats_of(&game, &[]), stats_of(&game, &["--no-demand"]));
    assert_eq!(with["relevant"], serde_json::Value::Bool(true), "{with}");
    assert!(without.get("relevant").is_none(), "{without}");
    let rules = |s: &serde_json::Value| s["rules"].as_u64().unwrap_or(0);
    assert!(
        rules(&with) * 5 < rules(&without),
        "{with} against {without}"
    );
    let (all, relevant) = (atoms_of(&game, &[]), atoms_of(&game, &["--relevant"]));
    assert_eq!(all.len() as u64, without["atoms"].as_u64().unwrap_or(0));
    assert_eq!(relevant.len() as u64, with["atoms"].as_u64().unwrap_or(0));
    let missing: Vec<&String> = all.iter().filter(|a| !relevant.contains(a)).collect();
    assert!(!missing.is_empty());
    assert!(
        missing.iter().all(|a| a.starts_with("(threat ")),
        "{missing:?}"
    );
    assert!(relevant.iter().all(|a| all.contains(a)));
}

/// Numeric flags out of range are usage errors naming the flag and the range (exit 2): no
/// panic (`--deadline 1e19` overflowed a `Duration`), no value silently ignored (`--max-memory
/// 0`, NaN).
#[test]
fn numeric_flags_out_of_range_are_usage_errors_naming_the_flag() {
    let game = here("examples/tictactoe.kif");
    let cases = [
        ("--deadline=1e19", "'--deadline <SECONDS>'"),
        ("--deadline=-1", "'--deadline <SECONDS>'"),
        ("--deadline=NaN", "'--deadline <SECONDS>'"),
        ("--max-memory=0", "'--max-memory <GIB>'"),
        ("--max-memory=1e9", "'--max-memory <GIB>'"),
        ("--max-memory=-2", "'--max-memory <GIB>'"),
        ("--max-memory=nan", "'--max-memory <GIB>'"),
    ];
    for (flag, named) in cases {
        let out = gdlground(&["ground", &game, "-o", "-", flag]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(named) && err.contains(" to "), "{flag}: {err}");
        assert!(out.stdout.is_empty(), "{flag}");
    }
    let out = gdlground(&["bench", "--timeout=1e20", &game]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("'--timeout <SECONDS>'"), "{err}");
}

/// `-o` naming the game (by its name or a hard link) is refused before any work, and so is
/// an output whose folder does not exist: the game is left as it was, nothing is written.
#[test]
fn an_output_that_is_the_game_or_has_no_folder_is_refused_at_once() {
    let dir = scratch("self-output");
    let game = dir.join("game.kif");
    let original = std::fs::read(here("examples/tictactoe.kif")).expect("the example");
    std::fs::write(&game, &original).expect("the game is written");
    let link = dir.join("link.kif");
    std::fs::hard_link(&game, &link).expect("a hard link");
    let game_s = game.to_str().unwrap();
    for (command, output) in [("ground", &game), ("ground", &link), ("watch", &game)] {
        let out = gdlground(&[command, game_s, "-o", output.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command} -o {output:?}: {err}");
        assert!(err.contains("is the game itself"), "{err}");
    }
    let missing = dir.join("no-such-folder/out.kif");
    let out = gdlground(&["ground", game_s, "-o", missing.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no-such-folder does not exist"), "{err}");
    assert_eq!(std::fs::read(&game).expect("the game"), original);
    assert!(gdlground(&["ground", game_s, "-o", "/dev/null"])
        .status
        .success());
}

/// GDL.md §3: names keep the game's spelling in every output; KIF still compares them
/// case-insensitively, and keywords come out as GDL names them.
#[test]
fn names_keep_their_spelling_and_keywords_their_meaning() {
    let path = scratch("spelled").join("spelled.kif");
    let game = "(ROLE Red) (init (cellHolds A)) (<= (LEGAL red (Move ?c)) (TRUE (cellholds ?c)))
        (<= (next (CellHolds ?c)) (does red (move ?c))) (goal Red 100) (<= terminal (true (cellHolds b)))";
    std::fs::write(&path, game).expect("scratch file");
    let path = path.to_string_lossy().to_string();
    for format in ["kif", "infix", "json"] {
        let out = gdlground(&["ground", &path, "--format", format]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for written in ["cellHolds", "Red", "Move"] {
            assert!(
                text.contains(written),
                "{format}: no `{written}` in\n{text}"
            );
        }
        for folded in ["cellholds", "CellHolds", "ROLE", "LEGAL", "TRUE"] {
            assert!(!text.contains(folded), "{format}: `{folded}` in\n{text}");
        }
    }
}
