//! `--superset domain-loop`: the domain-graph reduction loop (issue 7). Its fixpoint must
//! contain S* (the direct reachable fixpoint), the final pass must give S* exactly, the
//! incremental loop must reach the same fixpoint as recomputing every round and as two
//! workers, and the ground program over the fixpoint itself must play like the original.
//!
//! Without the corpus the corpus part skips with a message on stderr (and fails when
//! `CI=true`).

mod support;

use gdlground::engine::{Options, Round, Row, Strategy};
use gdlground::program::RelId;
use gdlground::write::{self, ground::AtomText, Notation};
use gdlground::{ground, ground_with, read_game, Game, Grounded, LoopOptions, Superset};
use std::path::{Path, PathBuf};
use support::{corpus, gdlground};

/// Corpus games whose loop runs in well under a second, across the collections; some keep
/// their seeds, some shrink `does`, and coloredtrails, guess, kitten_escapes_from_fire and
/// racetrackcorridor shrink `true` too (retracting derived bindings), over up to 3 rounds.
const CORPUS_GAMES: [&str; 14] = [
    "base/coloredtrails.kif",
    "base/guess.kif",
    "base/kitten_escapes_from_fire.kif",
    "base/racetrackcorridor.kif",
    "base/nim1.kif",
    "base/blocker.kif",
    "base/hanoi.kif",
    "base/connectFour.kif",
    "base/ticTacToe.kif",
    "ggpbase/test__test_case_3a.kif",
    "stanford2014/buttonsandlights.kif",
    "stanford2014/horseshoe.kif",
    "gresley/maze.kif",
    "chiaras/threepuzzle.kif",
];

/// The path of a file under the crate.
fn here(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The games to check: the examples, and the corpus sample when the corpus is there.
fn games() -> Vec<PathBuf> {
    let mut games: Vec<PathBuf> = ["examples/blocksworld.pl", "examples/tictactoe.kif"]
        .iter()
        .map(|g| here(g))
        .collect();
    if let Some(root) = corpus() {
        games.extend(CORPUS_GAMES.iter().map(|g| root.join(g)));
    }
    games
}

/// The loop with `final_pass` and `strategy`, recording its rounds.
fn domain_loop(final_pass: bool, strategy: Strategy) -> Superset {
    Superset::DomainLoop(LoopOptions {
        final_pass,
        strategy,
        ..LoopOptions::default()
    })
}

/// Grounds `game` over `superset` with `workers`.
fn grounded(game: &Game, superset: &Superset, workers: usize) -> Grounded {
    let options = Options {
        workers,
        ..Options::default()
    };
    ground_with(&game.program, &options, superset)
        .unwrap_or_else(|e| panic!("{}: {e:?}", game.source.name))
}

/// The atoms of a grounding.
fn atoms(g: &Grounded) -> &[(RelId, Row)] {
    &g.instantiation.atoms
}

/// How many atoms of the game (not of auxiliary relations) `g` has.
fn game_atoms(game: &Game, g: &Grounded) -> usize {
    let program = g.program(&game.program);
    atoms(g)
        .iter()
        .filter(|(rel, _)| !program.is_auxiliary(*rel))
        .count()
}

/// The ground game as KIF text.
fn text(game: &Game, g: &Grounded) -> String {
    let names = AtomText::new(g.program(&game.program), &g.encoding, Notation::Kif);
    write::ground::text(&g.ground, &names)
}

/// The rounds' removals (times left out).
fn removals(g: &Grounded) -> Vec<Vec<usize>> {
    let report = g.reduction.as_ref().expect("the loop ran");
    report
        .rounds
        .iter()
        .map(|r: &Round| r.removed.clone())
        .collect()
}

#[test]
fn the_fixpoint_contains_s_star_and_the_final_pass_gives_it() {
    for path in games() {
        let game = read_game(&path, None).expect("the game loads");
        let name = path.display();
        let direct = ground(&game.program, &Options::default()).expect("grounds");
        let fixpoint = grounded(&game, &domain_loop(false, Strategy::Incremental), 1);
        let fix: std::collections::HashSet<_> = atoms(&fixpoint).iter().collect();
        let outside: Vec<_> = atoms(&direct).iter().filter(|a| !fix.contains(a)).collect();
        assert!(
            outside.is_empty(),
            "{name}: S* atoms outside the fixpoint: {outside:?}"
        );
        let recomputed = grounded(&game, &domain_loop(false, Strategy::Recompute), 1);
        assert_eq!(atoms(&recomputed), atoms(&fixpoint), "{name}: recompute");
        assert_eq!(removals(&recomputed), removals(&fixpoint), "{name}: rounds");
        // Bindings retracted in later rounds leave no instance behind.
        assert_eq!(
            recomputed.instantiation.instances.len(),
            fixpoint.instantiation.instances.len(),
            "{name}: instances"
        );
        assert_eq!(text(&game, &recomputed), text(&game, &fixpoint), "{name}");
        let two = grounded(&game, &domain_loop(false, Strategy::Incremental), 2);
        assert_eq!(atoms(&two), atoms(&fixpoint), "{name}: two workers");
        assert_eq!(
            text(&game, &two),
            text(&game, &fixpoint),
            "{name}: two workers"
        );
        let last = removals(&fixpoint).pop().expect("a round");
        assert!(
            last.iter().all(|&n| n == 0),
            "{name}: the last round removes nothing"
        );
        let final_pass = grounded(&game, &domain_loop(true, Strategy::Incremental), 1);
        assert_eq!(atoms(&final_pass), atoms(&direct), "{name}: final pass");
        assert_eq!(text(&game, &final_pass), text(&game, &direct), "{name}");
        let report = final_pass.reduction.as_ref().expect("the loop ran");
        assert_eq!(report.reachable, Some(game_atoms(&game, &direct)));
        assert_eq!(report.fixpoint_atoms, game_atoms(&game, &fixpoint));
    }
}

#[test]
fn blocksworld_drops_the_stacks_no_state_allows_and_trace_says_so() {
    // legal(robot, stack(X,Y)) needs distinct(X,Y): stack(a,a), stack(b,b), stack(c,c) are
    // among the 18 `does` seeds (role robot × 9 stack + 9 unstack moves) but never legal, so
    // round 0 removes them and round 1 finds nothing more. `true` keeps all 19 seeds: the
    // frame rules re-derive next(on(a,a)) from true(on(a,a)) itself, a self-supporting cycle
    // only the final reachability pass breaks (S* has 90 atoms, the fixpoint 102).
    let game = here("examples/blocksworld.pl");
    let out = gdlground(&[
        "ground",
        game.to_str().expect("utf-8 path"),
        "-o",
        "-",
        "--superset",
        "domain-loop",
        "--trace",
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 4, "{err}");
    assert!(lines[0].starts_with("loop round 0: 37 derived atoms, removes 0 true and 3 does ("));
    assert!(lines[1].starts_with("loop round 1: 37 derived atoms, removes 0 true and 0 does ("));
    assert!(
        lines[2]
            .starts_with("loop fixpoint after 2 rounds: true 19 of 19, does 15 of 18; 102 atoms"),
        "{err}"
    );
    assert_eq!(
        lines[3],
        "final pass: S* has 90 atoms, all in the loop's fixpoint"
    );
    let ground_text = String::from_utf8_lossy(&out.stdout);
    assert!(!ground_text.contains("(stack a a)"), "{ground_text}");
}

#[test]
fn the_ground_program_over_the_fixpoint_plays_like_the_original() {
    for path in games().iter().take(8) {
        let out = gdlground(&[
            "validate",
            path.to_str().expect("utf-8 path"),
            "--playouts",
            "20",
            "--superset",
            "domain-loop",
            "--no-final-pass",
        ]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains(": ok: 20 playouts"),
            "{}: {text}{}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn games_the_loop_cannot_seed_are_refused_with_a_hint() {
    let growing = here("tests/data/growing.kif");
    let out = gdlground(&[
        "ground",
        growing.to_str().expect("utf-8 path"),
        "--superset",
        "domain-loop",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("gives `true` an infinite domain"), "{err}");
    assert!(
        err.contains("hint: the default `--superset reachable`"),
        "{err}"
    );
    let tictactoe = here("examples/tictactoe.kif");
    let out = gdlground(&[
        "ground",
        tictactoe.to_str().expect("utf-8 path"),
        "--superset",
        "domain-loop",
        "--max-atoms",
        "10",
        "-o",
        "/dev/null",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("instances, more than --max-atoms (10) allows"),
        "{err}"
    );
}
