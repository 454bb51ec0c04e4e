//! Certain atoms: atoms of dynamic relations that hold in every state, because a rule derives
//! them from static atoms alone.
//!
//! The relaxation (GDL.md §2) drops a negative literal over a dynamic relation, so a rule
//! instance that negates an atom true in every state survives into S\* although it never
//! fires. In queens, `queenmove(a,Y1,b,Y2)` holds whenever the two ranks are adjacent
//! (`horizontalmove`'s first rule reads static relations only), and the 8-queens `solution`
//! rule negates 28 `queenmove` atoms: without them, its relaxation has all 8^8 tuples; with
//! the certain ones decided, about 0.9 million. An instance whose negative literal is certain
//! never fires in any state, so dropping it keeps S\* sound.
//!
//! The certain atoms are an under-approximation computed from the *certain rules*: the rules
//! whose positive literals are over exact relations or relations with certain atoms, whose
//! negative literals are over exact relations, and which have no count. By induction on their
//! derivations, every atom they derive holds in every state.

use crate::program::{Literal, Program, Rule};

/// Whether `rule` is a certain rule, given which relations are computed exactly (`exact`) and
/// which may have certain atoms (`certain`).
pub fn certain_rule(rule: &Rule, exact: &[bool], certain: &[bool]) -> bool {
    rule.body.iter().all(|literal| match literal {
        Literal::Pos(a) => exact[a.rel as usize] || certain[a.rel as usize],
        Literal::Neg(a) => exact[a.rel as usize],
        Literal::Builtin { .. } => true,
        Literal::Count { .. } => false,
    })
}

/// Which relations get their certain atoms computed: relations neither exact nor given by
/// the state or the moves, with a certain rule (transitively), that a rule with a non-exact
/// head negates, and those such relations' certain rules read. Usually none: in most games
/// every negated dynamic relation reads the state in all its rules.
pub fn certain_relations(program: &Program, exact: &[bool]) -> Vec<bool> {
    let n = program.relations.len();
    let given = program.given_relations();
    let mut certain = vec![false; n];
    let mut changed = true;
    while changed {
        changed = false;
        for rule in &program.rules {
            let h = rule.head.rel as usize;
            if !certain[h] && !exact[h] && !given[h] && certain_rule(rule, exact, &certain) {
                certain[h] = true;
                changed = true;
            }
        }
    }
    let mut needed = vec![false; n];
    for rule in program.rules.iter().filter(|r| !exact[r.head.rel as usize]) {
        for literal in &rule.body {
            if let Literal::Neg(a) = literal {
                needed[a.rel as usize] |= certain[a.rel as usize];
            }
        }
    }
    let positive = |l: &Literal| match l {
        Literal::Pos(a) => Some(a.rel),
        _ => None,
    };
    super::close_over_reads(program, &certain, &mut needed, positive);
    needed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Dependencies;
    use crate::load::{load, source_from_bytes};
    use crate::syntax::Syntax;

    /// `reach` has a rule over static relations only and another reading the state; `apart`
    /// negates it; `open` reads the state in its only rule; `near` has a certain rule but
    /// nothing negates it.
    const GAME: &str = "
        (role r) (init (mark 1)) (num 1) (num 2) (num 3) (succ 1 2) (succ 2 3)
        (<= (legal r (go ?x)) (num ?x))
        (<= (next (mark ?x)) (does r (go ?x)))
        (<= (open ?x) (num ?x) (not (true (mark ?x))))
        (<= (reach ?x ?y) (succ ?x ?y))
        (<= (reach ?x ?z) (succ ?x ?y) (open ?y) (reach ?y ?z))
        (<= (near ?x ?y) (succ ?x ?y))
        (<= (near ?x ?y) (true (mark ?x)) (num ?y))
        (<= (apart ?x ?y) (num ?x) (num ?y) (distinct ?x ?y) (not (reach ?x ?y)))
        (<= (goal r 100) (apart 1 3) (near 1 2)) (<= (goal r 0) (not (apart 1 3)))
        (<= terminal (true (mark 3)))
    ";

    #[test]
    fn only_negated_relations_with_a_rule_over_static_relations_are_certain() {
        let source =
            source_from_bytes("game.kif".into(), GAME.as_bytes().to_vec(), Syntax::Kif).unwrap();
        let game = load(source, Syntax::Kif).unwrap();
        let program = &game.program;
        let exact = Dependencies::new(program).exact_relations(program);
        let certain = certain_relations(program, &exact);
        let named: Vec<&str> = (0..certain.len())
            .filter(|&r| certain[r])
            .map(|r| program.relation_name(r as crate::program::RelId))
            .collect();
        assert_eq!(named, ["reach"]);
        let reach = program.relation("reach", 2).unwrap();
        let rules: Vec<bool> = (program.rules.iter())
            .filter(|rule| rule.head.rel == reach)
            .map(|rule| certain_rule(rule, &exact, &certain))
            .collect();
        assert_eq!(rules, [true, false]);
    }
}
