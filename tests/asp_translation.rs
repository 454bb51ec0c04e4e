//! The ASP translation against gringo (GDL.md §5): gringo must accept the relaxed and the full
//! translation of real games, and the relaxed one must give back S, read as KIF atoms.
//! Without gringo or clingo the tests skip (and fail when `CI=true`).

mod support;

use gdlground::load::load;
use gdlground::syntax::{SourceFile, Syntax};
use gdlground::write::{self, Format};
use std::collections::BTreeSet;
use std::process::Command;
use support::oracle;

/// Small, fast games across the corpus, relative to the crate.
const GAMES: [&str; 10] = [
    "examples/tictactoe.kif",
    "../shared/games/base/nim1.kif",
    "../shared/games/base/coins.kif",
    "../shared/games/base/blocker.kif",
    "../shared/games/base/hanoi.kif",
    "../shared/games/ggpbase/test__simpleMutex.kif",
    "../shared/games/ggpbase/test__connectFour.kif",
    "../shared/games/stanford2014/buttonsandlights.kif",
    "../shared/games/stanford2014/3puzzle.kif",
    "../shared/games/stanford2014/horseshoe.kif",
];

/// The full path of a game in [`GAMES`].
fn path(game: &str) -> String {
    format!("{}/{game}", env!("CARGO_MANIFEST_DIR"))
}

/// `gdlground export-asp GAME [--relaxed]`, which must succeed.
fn export(game: &str, relaxed: bool) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gdlground"));
    command.arg("export-asp").arg(path(game));
    if relaxed {
        command.arg("--relaxed");
    }
    let output = command.output().expect("cannot run gdlground");
    assert!(
        output.status.success(),
        "export-asp {game} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("export-asp wrote invalid UTF-8")
}

/// The game's `role` and `init` facts, as KIF text.
fn role_and_init_facts(game: &str) -> Vec<String> {
    let loaded = gdlground::read_game(path(game).as_ref(), None)
        .unwrap_or_else(|e| panic!("{game} is rejected:\n{}", e.render()));
    let kif = write::program(&loaded.program, Format::Kif).expect("a classic game prints as KIF");
    kif.lines()
        .filter(|l| l.starts_with("(role ") || l.starts_with("(init "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn relaxed_translations_give_roles_init_and_the_initial_state() {
    if oracle::gringo_or_skip().is_none() {
        return;
    }
    for game in GAMES {
        let atoms = oracle::relaxed_atoms(&export(game, true))
            .unwrap_or_else(|e| panic!("gringo on the relaxed {game}: {e}"));
        let facts = role_and_init_facts(game);
        assert!(facts.iter().any(|f| f.starts_with("(role ")), "{game}");
        for fact in facts {
            assert!(atoms.contains(&fact), "{game}: S lacks {fact}");
            if let Some(fluent) = fact.strip_prefix("(init ") {
                let state = format!("(true {fluent}");
                assert!(atoms.contains(&state), "{game}: S lacks {state}");
            }
        }
    }
}

#[test]
fn full_translations_ground_into_rules() {
    if oracle::gringo_or_skip().is_none() {
        return;
    }
    for game in GAMES {
        let (time, rules) = oracle::full_ground(&export(game, false))
            .unwrap_or_else(|e| panic!("gringo on the full {game}: {e}"));
        eprintln!("{game}: gringo {rules} rules in {time:?}");
        assert!(rules > 0, "{game}: gringo kept no rule with a body");
    }
}

#[test]
fn odd_names_come_back_as_the_program_spells_them() {
    if oracle::gringo_or_skip().is_none() {
        return;
    }
    let kif = "(role robot) (init (my_cell 1 a.b)) (<= (legal ?r (go-to x_1)) (role ?r))
               (<= (next (my_cell 2 ?z)) (does ?r (go-to ?z))) (<= (goal ?r 100) (role ?r))
               (<= terminal (true (my_cell 2 ?z)) (not (true (my_cell 3 ?z))))";
    let infix = "role(\"Big Robot\"). init(\"say \\\"hi\\\" \\\\ now\").
                 legal(R, noop) :- role(R). goal(R, 0) :- role(R). terminal :- true(\"x\").";
    let expected_kif = [
        "(does robot (go-to x_1))",
        "(goal robot 100)",
        "(init (my_cell 1 a.b))",
        "(legal robot (go-to x_1))",
        "(next (my_cell 2 x_1))",
        "(role robot)",
        "(true (my_cell 1 a.b))",
        "(true (my_cell 2 x_1))",
        "terminal",
    ];
    let expected_infix = [
        "(does Big Robot noop)",
        "(goal Big Robot 0)",
        "(init say \"hi\" \\ now)",
        "(legal Big Robot noop)",
        "(role Big Robot)",
        "(true say \"hi\" \\ now)",
    ];
    for (name, text, syntax, expected) in [
        ("odd.kif", kif, Syntax::Kif, &expected_kif[..]),
        ("odd.pl", infix, Syntax::Infix, &expected_infix[..]),
    ] {
        let game = load(SourceFile::new(name, text), syntax)
            .unwrap_or_else(|e| panic!("{name} is rejected:\n{}", e.render()));
        let asp = write::asp(&game.program, true).expect("a classic game translates");
        let atoms = oracle::relaxed_atoms(&asp).unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
        assert_eq!(atoms, expected, "{name}");
    }
}

#[test]
fn operation_games_have_no_translation() {
    let output = Command::new(env!("CARGO_BIN_EXE_gdlground"))
        .args(["export-asp", &path("examples/buttons.hrf")])
        .output()
        .expect("cannot run gdlground");
    assert_eq!(output.status.code(), Some(2));
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(errors.contains("no ASP translation"), "{errors}");
}
