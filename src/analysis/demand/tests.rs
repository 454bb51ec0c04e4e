use super::restrict;
use crate::engine::Options;
use crate::load::{load, source_from_bytes};
use crate::program::Program;
use crate::reason::playout::{self, Options as Playouts};
use crate::syntax::Syntax;
use crate::{ground, Grounded};

/// A cut-down chess (its comment says more): the threat relation draws the ignored cell's
/// coordinates freely (7 · 7 values per threat), and its only reader calls it under negation
/// with every argument bound.
const THREATS: &str = include_str!("../../../tests/data/threats.kif");

fn program(text: &str) -> Program {
    let source =
        source_from_bytes("game.kif".into(), text.as_bytes().to_vec(), Syntax::Kif).unwrap();
    load(source, Syntax::Kif).unwrap().program
}

fn grounded(program: &Program, demand: bool) -> Grounded {
    let options = Options {
        demand,
        ..Options::default()
    };
    ground(program, &options).unwrap()
}

#[test]
fn a_threat_read_under_negation_is_ground_only_for_its_calls() {
    let game = program(THREATS);
    let restricted = restrict(&game).expect("the threat relation is restricted");
    let threat = game.relation("threat", 5).unwrap();
    assert_eq!(restricted.demand.restricted, [threat]);
    let (with, without) = (grounded(&game, true), grounded(&game, false));
    let (small, large) = (with.ground.rules.len(), without.ground.rules.len());
    assert!(
        small * 5 < large,
        "{small} rules with demand, {large} without"
    );
    let options = Playouts {
        playouts: 5,
        seed: 7,
        max_steps: 10,
    };
    let summary = playout::validate(
        with.source(&game),
        with.program(&game),
        &with.encoding,
        &with.ground,
        &options,
        &mut |_| {},
    );
    assert!(summary.is_ok(), "{:?}", summary.err());
}

#[test]
fn a_relation_some_reader_calls_with_nothing_bound_is_not_restricted() {
    let text = format!("{THREATS} (<= (goal ?p 100) (threat ?p ?x ?y ?u ?v))");
    assert!(restrict(&program(&text)).is_none());
}

/// ruleDepthExponential cut down: each level's rule draws its bits freely, and the level
/// above calls it with the lower bits bound and the new one free, so every level's calls are
/// all its values and demand would cut nothing.
#[test]
fn a_cross_product_whose_calls_leave_a_part_free_is_not_restricted() {
    let text = "(role r) (init (step 1)) (legal r go) (<= (legal r stay) (level1 0))
        (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m)) (succ 1 2) (succ 2 3)
        (<= terminal (true (step 3))) (goal r 100) (bit 0) (bit 1)
        (<= (level1 ?b0) (bit ?b0) (true (step 1)))
        (<= (level2 ?b1 ?b0) (bit ?b1) (bit ?b0) (true (step 2)))
        (<= (level3 ?b2 ?b1 ?b0) (bit ?b2) (bit ?b1) (bit ?b0) (true (step 3)))
        (<= (level1 ?b0) (bit ?b0) (level2 ?b0 0) (level2 ?b0 1))
        (<= (level2 ?b1 ?b0) (bit ?b1) (bit ?b0) (level3 ?b1 ?b0 0) (level3 ?b1 ?b0 1))";
    assert!(restrict(&program(text)).is_none());
}
