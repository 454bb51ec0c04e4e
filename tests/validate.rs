//! `gdlground validate`: the ground program against the original rules by random playouts, on
//! the examples and a sample of the corpus; and the reference reasoner itself against clingo,
//! which evaluates the game's ASP translation on states a playout visits.
//!
//! Without the corpus the corpus tests skip, and without clingo the oracle test skips, each
//! with a message on stderr (and fail when `CI=true`).

mod support;

use gdlground::engine::Row;
use gdlground::program::encoding::Encoding;
use gdlground::reason::reference::Reference;
use gdlground::reason::{Answers, JointMove, Reasoner};
use gdlground::write::{self, ground::AtomText, Notation};
use gdlground::{read_game, Game};
use std::collections::BTreeSet;

use std::path::Path;
use std::process::Command;
use support::{corpus, in_ci, oracle, skip};

/// Small and medium corpus games (each grounds in well under 2 s) across the collections.
const CORPUS_GAMES: [&str; 10] = [
    "base/nim1.kif",
    "base/blocker.kif",
    "base/hanoi.kif",
    "base/futoshiki4__futoshiki.kif",
    "ggpbase/test__connectFour.kif",
    "ggpbase/test__test_case_3a.kif",
    "stanford2014/buttonsandlights.kif",
    "stanford2014/horseshoe.kif",
    "gresley/maze.kif",
    "chiaras/threepuzzle.kif",
];

/// Runs `gdlground validate GAME ARGS...`: the exit code, stdout and stderr.
fn validate(game: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_gdlground"))
        .arg("validate")
        .arg(game)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run gdlground: {e}"));
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Asserts that `game` validates with 20 playouts.
fn assert_validates(game: &Path) {
    let (code, out, err) = validate(game, &["--playouts", "20"]);
    assert_eq!(code, Some(0), "{}:\n{out}{err}", game.display());
    assert!(out.contains(": ok: 20 playouts"), "{out}");
}

#[test]
fn the_examples_validate() {
    for name in ["tictactoe.kif", "tictactoe.pl", "nim.pl", "blocksworld.pl"] {
        assert_validates(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("examples")
                .join(name),
        );
    }
}

#[test]
fn a_corpus_sample_validates() {
    let Some(root) = corpus() else { return };
    for game in CORPUS_GAMES {
        assert_validates(&root.join(game));
    }
}

/// Corpus games whose ground rules change when groups of literals are projected together
/// (`program::groups`: tron's 126 K rules become 3 K, breakthrough's 39 K 20 K), each
/// validating in well under a second.
const GROUPED_GAMES: [&str; 4] = [
    "base/tron_10x10.kif",
    "base/breakthroughSmall.kif",
    "base/majorities.kif",
    "base/knightThrough.kif",
];

#[test]
fn games_whose_rules_are_projected_in_groups_validate() {
    let Some(root) = corpus() else { return };
    for game in GROUPED_GAMES {
        assert_validates(&root.join(game));
    }
}

/// gt_two_thirds_4p adds four guesses in one rule (101^4 instances): it grounds only
/// through groups of literals projected together, and then in about 300 MB.
#[test]
fn a_sum_of_four_guesses_grounds_within_two_gib_and_validates() {
    grounds_within_and_validates("base/gt_two_thirds_4p.kif", "2");
}

/// racer's velocities (`legal_speed(P, N1, N2) :- true(velx(P, D1)) & pmone(D1, N1) & …`)
/// multiply its rule by every velocity of each new one unless the group of a velocity is
/// projected over the two head variables it keeps: 4.2 M rules and 3.6 GB before, 0.5 M
/// and 250 MB with it.
#[test]
fn a_group_over_head_variables_grounds_racer_within_one_gib_and_validates() {
    grounds_within_and_validates("base/racer.kif", "1");
}

/// Grounds the corpus game `name` under a memory limit of `gib` GiB, then validates three
/// playouts.
fn grounds_within_and_validates(name: &str, gib: &str) {
    let Some(root) = corpus() else { return };
    let game = root.join(name);
    let game = game.to_str().expect("a UTF-8 path");
    let out = support::gdlground(&["ground", game, "-o", "-", "--max-memory", gib]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let (code, out, err) = validate(Path::new(game), &["--playouts", "3"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains(": ok: 3 playouts"), "{out}");
}

#[test]
fn the_same_seed_replays_the_same_playouts() {
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/nim.pl");
    let summary = |seed: &str| {
        let (code, out, _) = validate(&game, &["--playouts", "5", "--seed", seed]);
        assert_eq!(code, Some(0), "{out}");
        // The line without its time.
        out.rsplit_once(", ")
            .map(|(s, _)| s.to_owned())
            .unwrap_or_default()
    };
    assert_eq!(summary("7"), summary("7"));
    assert_ne!(summary("7"), summary("8"));
}

/// The operation examples validate too (the operation semantics on both sides; more in
/// tests/operations.rs).
#[test]
fn the_operation_examples_validate() {
    for name in ["buttons.hrf", "takeaway.hrf"] {
        assert_validates(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("examples")
                .join(name),
        );
    }
}

/// Games the reference reasoner is checked on against clingo, relative to the crate.
const ORACLE_GAMES: [&str; 3] = [
    "examples/tictactoe.kif",
    "../shared/games/base/blocker.kif",
    "../shared/games/base/futoshiki4__futoshiki.kif",
];

/// How many states (with a joint move each) every game is checked on.
const ORACLE_STATES: usize = 4;

/// At most this many playouts are started to find them (a playout ends at a terminal state).
const ORACLE_PLAYOUTS: usize = 20;

/// Every atom the reference reasoner derives in a state with a joint move — every relation,
/// not only legal/next/goal/terminal — must be the unique answer set clingo finds for the
/// game's ASP translation without its dynamics rules, plus the state's `true` and the move's
/// `does` facts.
#[test]
fn the_reference_reasoner_agrees_with_clingo() {
    if oracle::clingo().is_none() {
        assert!(
            !in_ci(),
            "clingo not found, and CI=true needs the oracle: pip install clingo==5.8.3"
        );
        skip("clingo not found (pip install clingo==5.8.3)");
        return;
    }
    for name in ORACLE_GAMES {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
        if !path.is_file() {
            assert!(!in_ci(), "{name} is missing");
            skip(&format!("{name} is missing"));
            continue;
        }
        let game = read_game(&path, None).unwrap_or_else(|e| panic!("{}", e.render()));
        let rules = translation(&game);
        let encoding = Encoding::new(&game.program);
        let mut reference =
            Reference::new(&game.program, &encoding).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = AtomText::new(&game.program, &encoding, Notation::Kif);
        let kif = |rel: Option<u32>, row: &[u32]| {
            let mut s = String::new();
            if let Some(rel) = rel {
                text.atom(rel, &Row::from_slice(row), &mut s);
            }
            s
        };
        let (t, d) = (
            game.program.relation("true", 1),
            game.program.relation("does", 2),
        );
        let mut state = reference.initial_state();
        let mut checked = 0;
        let mut playouts = 1;
        let mut seed = 1u64;
        loop {
            if checked == ORACLE_STATES || playouts > ORACLE_PLAYOUTS {
                break;
            }
            let answers = reference
                .answer(&state, None)
                .unwrap_or_else(|e| panic!("{e}"));
            if answers.terminal {
                state = reference.initial_state();
                playouts += 1;
                continue;
            }
            let joint = some_joint_move(&reference.roles(), &answers, &mut seed);
            let answers = reference
                .answer(&state, Some(&joint))
                .unwrap_or_else(|e| panic!("{e}"));
            let ours: BTreeSet<String> = reference
                .static_atoms()
                .chain(reference.state_atoms())
                .map(|(rel, row)| kif(Some(rel), row))
                .collect();
            let mut program = rules.clone();
            let inputs = state.fluents().iter().map(|f| kif(t, f)).chain(
                joint
                    .moves
                    .iter()
                    .map(|(r, m)| kif(d, &[&r[..], &m[..]].concat())),
            );
            for atom in inputs.filter(|a| !a.is_empty()) {
                program.push_str(&oracle::asp_fact(&atom).unwrap_or_else(|e| panic!("{e}")));
                program.push('\n');
            }
            let clingo = oracle::answer_set(&program).unwrap_or_else(|e| panic!("{name}: {e}"));
            let only_ours: Vec<_> = ours.difference(&clingo).take(5).collect();
            let only_clingo: Vec<_> = clingo.difference(&ours).take(5).collect();
            assert!(
                only_ours.is_empty() && only_clingo.is_empty(),
                "{name}, state {checked}: only the reference derives {only_ours:?}, only clingo {only_clingo:?}"
            );
            state = answers.next.unwrap_or_default();
            checked += 1;
        }
        assert_eq!(checked, ORACLE_STATES, "{name}: too few states checked");
    }
}

/// The full ASP translation of `game` without the dynamics rules at its end: the state and the
/// move come as facts instead.
fn translation(game: &Game) -> String {
    let full = write::asp(&game.program, false).unwrap_or_else(|e| panic!("{e}"));
    let marker = "% The dynamics (GDL.md §2).\n";
    let Some((rules, dynamics)) = full.split_once(marker) else {
        panic!("the ASP translation no longer marks its dynamics rules with `{marker}`");
    };
    assert_eq!(dynamics.lines().count(), 3, "{dynamics}");
    rules.to_owned()
}

/// A joint move of legal moves, picked by a linear congruential generator with state `seed`.
fn some_joint_move(roles: &[Row], answers: &Answers, seed: &mut u64) -> JointMove {
    let moves = roles
        .iter()
        .map(|role| {
            let legal: Vec<_> = answers.moves_of(role).collect();
            assert!(!legal.is_empty(), "a role without legal moves");
            *seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (
                role.clone(),
                legal[(*seed >> 33) as usize % legal.len()].clone(),
            )
        })
        .collect();
    JointMove { moves }
}
