//! The domain graph against the numbers of the analysis chapter (Definition 14.1, Tables 14.1
//! and 14.2, the blocksworld exercise), the derived counts against the engine, and the
//! `domains` command's three outputs.
//!
//! Two kinds of count: the domain graph's (the product of a relation's argument domains, or a
//! rule's instances over them) and the engine's (what is actually derivable). The chapter
//! states two derived counts wrongly; the tests assert what is right and say why.

mod support;

use gdlground::analysis::domains::{Domains, Size, Unbounded};
use gdlground::engine::Options;
use gdlground::program::encoding::Encoding;
use gdlground::program::{Builtin, Literal, Program, RelId};
use gdlground::{ground, read_game, Grounded};
use std::collections::HashSet;
use std::path::Path;
use support::gdlground;

/// The path of a file under the crate.
fn here(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(rel)
        .display()
        .to_string()
}

/// The program of the game in `rel`, its domains and its grounding.
fn analyse(rel: &str) -> (Program, Domains, Grounded) {
    let game = read_game(Path::new(&here(rel)), None).expect("the game loads");
    let domains = Domains::new(&game.program);
    // The rules as written: their instances are what the domains bound.
    let options = Options {
        project_locals: false,
        ..Options::default()
    };
    let grounded = ground(&game.program, &options).expect("the game grounds");
    (game.program, domains, grounded)
}

/// The relation `name`/`arity`.
fn rel(program: &Program, name: &str, arity: usize) -> RelId {
    program
        .relation(name, arity)
        .unwrap_or_else(|| panic!("{name}/{arity} is in the game"))
}

/// How many atoms of `rel` the engine derives (S*).
fn derived(grounded: &Grounded, rel: RelId) -> usize {
    let atoms = &grounded.instantiation.atoms;
    atoms.iter().filter(|(r, _)| *r == rel).count()
}

/// The sizes of `rel`'s argument domains.
fn sizes(program: &Program, domains: &Domains, rel: RelId) -> Vec<Size> {
    let positions = domains.relation_positions(program, rel);
    positions.iter().map(|&p| domains.size(p)).collect()
}

/// The values of argument `index` (from 0) of `rel`, as text.
fn values(program: &Program, domains: &Domains, rel: RelId, index: usize) -> Vec<String> {
    let pos = domains.graph.relation_position(rel, index);
    domains
        .values(pos)
        .map(|v| {
            let mut s = String::new();
            gdlground::write::domains::value(program, &v, gdlground::write::Notation::Kif, &mut s);
            s
        })
        .collect()
}

#[test]
fn chessboard_domains_and_derived_counts_match_table_14_1() {
    let (program, domains, grounded) = analyse("tests/data/kingmoves.pl");
    let next_file = rel(&program, "next_file", 2);
    assert_eq!(domains.relation_size(&program, next_file), Size::Finite(49));
    assert_eq!(
        values(&program, &domains, next_file, 0).join(" "),
        "a b c d e f g"
    );
    assert_eq!(
        values(&program, &domains, next_file, 1).join(" "),
        "b c d e f g h"
    );
    assert_eq!(derived(&grounded, next_file), 7);

    // Files and ranks share adjacent's domains: 16 values each, 28 derivable pairs.
    let adjacent = rel(&program, "adjacent", 2);
    assert_eq!(domains.relation_size(&program, adjacent), Size::Finite(256));
    assert_eq!(
        values(&program, &domains, adjacent, 0).join(" "),
        "1 2 3 4 5 6 7 8 a b c d e f g h"
    );
    assert_eq!(derived(&grounded, adjacent), 28);

    // The chapter says 444 king moves; a king on 8x8 has 3 moves from each of the 4
    // corners, 5 from each of the 24 other edge squares, 8 from each of the 36 inner ones.
    let kingmove = rel(&program, "kingmove", 4);
    assert_eq!(
        sizes(&program, &domains, kingmove),
        vec![Size::Finite(16); 4]
    );
    assert_eq!(
        domains.relation_size(&program, kingmove),
        Size::Finite(65536)
    );
    assert_eq!(derived(&grounded, kingmove), 4 * 3 + 24 * 5 + 36 * 8);
    assert_eq!(derived(&grounded, kingmove), 420);
}

#[test]
fn tictactoe_domains_are_those_of_table_14_2() {
    let (program, domains, _) = analyse("examples/tictactoe.kif");
    let expect = [
        ("role", 1, vec!["oplayer xplayer"]),
        ("index", 1, vec!["1 2 3"]),
        ("mark", 1, vec!["b o x"]),
        ("row", 2, vec!["1 2 3", "b o x"]),
        ("column", 2, vec!["1 2 3", "b o x"]),
        ("diagonal", 1, vec!["b o x"]),
        ("line", 1, vec!["b o x"]),
        ("goal", 2, vec!["oplayer xplayer", "0 50 100"]),
    ];
    for (name, arity, domain) in expect {
        let r = rel(&program, name, arity);
        let got: Vec<String> = (0..arity)
            .map(|i| values(&program, &domains, r, i).join(" "))
            .collect();
        assert_eq!(got, domain, "{name}/{arity}");
    }
    // The state: 27 cells and 2 control fluents, in every relation that holds fluents.
    for name in ["base", "init", "true", "next"] {
        let r = rel(&program, name, 1);
        assert_eq!(
            domains.relation_size(&program, r),
            Size::Finite(29),
            "{name}"
        );
    }
    // The moves: a mark on one of 9 cells or noop, for either role.
    for name in ["input", "legal", "does"] {
        let r = rel(&program, name, 2);
        assert_eq!(
            sizes(&program, &domains, r),
            vec![Size::Finite(2), Size::Finite(10)],
            "{name}"
        );
        let moves = values(&program, &domains, r, 1);
        assert_eq!(moves.first().map(String::as_str), Some("noop"));
        assert!(moves.contains(&"(mark 2 3)".to_string()));
    }
}

#[test]
fn the_blocksworld_rule_has_27_domain_instances_of_which_12_are_derivable() {
    let (program, domains, grounded) = analyse("examples/blocksworld.pl");
    // next(clear(Y)) :- does(robot,stack(U,V)) & true(clear(Y)) & distinct(V,Y)
    let next = rel(&program, "next", 1);
    let does = rel(&program, "does", 2);
    let index = program
        .rules
        .iter()
        .position(|r| {
            let distinct = |l: &Literal| {
                matches!(
                    l,
                    Literal::Builtin {
                        op: Builtin::Distinct,
                        ..
                    }
                )
            };
            r.head.rel == next
                && r.body.iter().any(distinct)
                && matches!(&r.body[0], Literal::Pos(a) if a.rel == does)
        })
        .expect("the rule is in the game");
    assert_eq!(
        domains.rule_instances(&program.rules[index]),
        Size::Finite(27)
    );
    // The exercise says 6. With a, b, c on the table (reachable after unstack(c,a)) all six
    // stack(U,V) moves are legal, and each keeps the two blocks Y other than V clear: 12
    // instances, every one of them on a real playout. 6 counts only U, V, Y all different,
    // but stacking U keeps U itself clear (Y = U).
    let out = gdlground(&["domains", &here("examples/blocksworld.pl"), "--rules"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "  27  next(clear(Y)) :- does(robot,stack(U,V)) & true(clear(Y)) & distinct(V,Y)\n"
        ),
        "{text}"
    );
    let derived = grounded
        .instantiation
        .instances
        .iter()
        .filter(|i| i.rule == index)
        .count();
    assert_eq!(derived, 12);
}

#[test]
fn every_derived_atom_has_its_arguments_in_the_domains() {
    for game in [
        "examples/tictactoe.kif",
        "examples/nim.pl",
        "examples/blocksworld.pl",
        "tests/data/kingmoves.pl",
    ] {
        let (program, domains, grounded) = analyse(game);
        let encoding = Encoding::new(&program);
        for r in 0..program.relations.len() as RelId {
            let Some(tuples) = domains.relation_tuples(&program, r) else {
                panic!("{game}: {} has unbounded domains", program.relation_name(r));
            };
            let rows: HashSet<Vec<u32>> = tuples.rows(&encoding).collect();
            for (_, row) in grounded.instantiation.atoms.iter().filter(|(a, _)| *a == r) {
                assert!(
                    rows.contains(row.as_slice()),
                    "{game}: an atom of {} is outside its domains",
                    program.relation_name(r)
                );
            }
        }
    }
}

#[test]
fn corpus_atoms_have_their_arguments_in_the_domains() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/games");
    if !corpus.is_dir() {
        eprintln!("SKIPPED: the game corpus {} is missing", corpus.display());
        return;
    }
    // Small and mid-sized games of several styles, grounded in seconds; test_case_5a has
    // unbounded domains (f/1 nests in itself).
    for game in [
        "base/connectFour.kif",
        "base/breakthrough.kif",
        "base/hanoi.kif",
        "base/knightsTour.kif",
        "base/pentago.kif",
        "ggpbase/test__test_case_5a.kif",
        "stanford2014/3puzzle.kif",
        "stanford2014/horseshoe.kif",
        "gresley/maze.kif",
        "chiaras/bandl7.kif",
        "base/othello-comp2007.kif",
    ] {
        let (program, domains, grounded) = analyse(&format!("../shared/games/{game}"));
        let encoding = &grounded.encoding;
        for (r, row) in grounded.instantiation.atoms.iter() {
            assert!(
                domains.contains_atom(&program, encoding, *r, row),
                "{game}: an atom of {} is outside its domains",
                program.relation_name(*r)
            );
        }
        if let Some(r#true) = program.relation("true", 1) {
            let seeds = domains.relation_size(&program, r#true).finite();
            let derived = derived(&grounded, r#true) as u128;
            assert!(seeds.is_none_or(|n| n >= derived), "{game}");
        }
    }
}

#[test]
fn nesting_terms_make_domains_unbounded_and_the_command_still_answers() {
    let game = read_game(Path::new(&here("tests/data/growing.kif")), None).expect("loads");
    let program = &game.program;
    let domains = Domains::new(program);
    let r#true = rel(program, "true", 1);
    assert!(matches!(
        domains.relation_size(program, r#true),
        Size::Unbounded(_)
    ));
    assert!(domains.relation_tuples(program, r#true).is_none());
    assert_eq!(
        domains.relation_size(program, rel(program, "role", 1)),
        Size::Finite(1)
    );
    let out = gdlground(&["domains", &here("tests/data/growing.kif")]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("relation true/1: unbounded (succ/1 terms nest in themselves)"),
        "{text}"
    );
}

#[test]
fn the_command_prints_a_table_json_and_dot() {
    let game = here("tests/data/kingmoves.pl");
    let table = gdlground(&["domains", &game, "--limit", "3"]);
    assert!(table.status.success());
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("relation next_file/2: 49 tuples\n    1  7  a, b, c, … (4 more)\n"));
    assert!(text.contains("relation kingmove/4: 65536 tuples"));

    let json = gdlground(&["domains", &game, "--json", "--limit", "2"]);
    assert!(json.status.success());
    let text = String::from_utf8_lossy(&json.stdout);
    assert!(text.starts_with("{\"relations\": [{\"name\": \"adjacent\", \"arity\": 2, \"size\": 256, \"positions\": [{\"arg\": 1, \"size\": 16, \"values\": [\"1\", \"2\"], \"more\": 14}"));
    assert!(text.contains("\"functions\": [{\"name\": \"at\""));

    let dot = gdlground(&["domains", &game, "--dot"]);
    assert!(dot.status.success());
    let text = String::from_utf8_lossy(&dot.stdout);
    assert!(text.starts_with("digraph domains {"));
    assert!(text.contains("[label=\"kingmove[4]\", shape=box];"));
    assert!(text.trim_end().ends_with('}'));

    let both = gdlground(&["domains", &game, "--dot", "--json"]);
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn an_operation_game_has_domains_for_its_fluents_and_actions() {
    let game = read_game(Path::new(&here("examples/buttons.hrf")), None).expect("loads");
    let program = &game.program;
    let domains = Domains::new(program);
    // tick :: step(M) & plus(M,1,N) ==> ~step(M) & step(N): plus computes the step.
    let step = domains.graph.relation_position(rel(program, "step", 1), 0);
    assert_eq!(domains.size(step), Size::Unbounded(Unbounded::Computed));
    let constants: Vec<&str> = domains
        .reach(step)
        .constants
        .iter()
        .map(|&c| program.symbols.name(domains.graph.constants[c as usize]))
        .collect();
    assert_eq!(
        constants,
        ["1", "2", "3", "4", "5", "6", "7"],
        "from base(step(N)) :- count(N)"
    );
    let legal = rel(program, "legal", 1);
    assert_eq!(values(program, &domains, legal, 0).join(" "), "a b c tick");
}
