//! Splitting the state by fluent: `true` and `next` become one relation per fluent functor
//! (the first token of their argument), so that the fluents that do not depend on each other
//! are not in one recursive component.
//!
//! Why: a recursive component iterates until its slowest relation stops growing, and every
//! iteration costs timely a few steps of progress tracking over all of the component's
//! operators. In most games a step counter (`next(step(N)) :- true(step(M)), succ(M, N)`)
//! counts to 50 or 200 in the same component as the board, which is complete after a few
//! iterations: the whole board's operators were stepped a hundred times for nothing. Split,
//! the counter is a component of its own (three operators, iterated as often as it counts),
//! and the board reads it complete.
//!
//! Sound and exact: a literal `true(f(..))` only matches atoms whose first token is `f`, so
//! reading the part of `f` alone reads the same atoms; `next(f(..))` heads derive into the
//! part of `f`; each part of `true` is the part of `next` with the `init` atoms of its
//! functor. The program's `true(F) :- init(F)` stays, so that every initial fluent is in S*
//! even if no rule reads its part. The atoms of a part are the program relation's
//! ([`Plan::original`]).
//!
//! Games whose rules read or derive the state through a variable (`next(F) :- true(F), ...`)
//! are left as they are: the part such a literal reads is not known before running.

use super::pattern::{Item, Pattern};
use super::plan::{components, Plan, RulePlan, Step};
use crate::program::encoding::{token_arity, Token};
use crate::program::{Keyword, Program, RelId, VarId};
use std::collections::BTreeSet;
use std::sync::Arc;

/// `plan` (of the classic model's [`Part::Rest`](super::plan::Part::Rest)) with `true` and
/// `next` split by fluent functor where every rule allows it, unchanged otherwise.
pub fn split(mut plan: Plan, program: &Program) -> Plan {
    let Some((truth, next)) = state_relations(program) else {
        return plan;
    };
    let Some(parts) = parts(&plan, truth, next) else {
        return plan;
    };
    if parts.len() < 2 {
        return plan;
    }
    // Ids past the program's relations and their certain ids.
    let base = 2 * program.relations.len() as RelId;
    let part_id = |rel: RelId, token: Token| {
        let i = parts.iter().position(|&t| t == token).unwrap_or(0) as RelId;
        base + i * 2 + RelId::from(rel == next)
    };
    let rename =
        |rel: RelId, pattern: &Pattern| match (rel == truth || rel == next, pattern.first()) {
            (true, Some(&Item::Tok(token))) => part_id(rel, token),
            _ => rel,
        };
    let mut rules = Vec::with_capacity(plan.rules.len() + 2 * parts.len());
    for mut rule in std::mem::take(&mut plan.rules) {
        if let Some(from) = rule.copies().filter(|_| rule.head_rel == truth) {
            // `true(F) :- r(F)`, one per part; the program's own kept only for `init`.
            for &token in &parts {
                let from = if from == next {
                    part_id(next, token)
                } else {
                    from
                };
                rules.push(copy(token, part_id(truth, token), from, &plan.arities));
            }
            if from != next {
                rules.push(rule);
            }
            continue;
        }
        rule.head_rel = rename(rule.head_rel, &rule.head);
        for step in Arc::make_mut(&mut rule.steps) {
            if let Step::Join { rel, pattern, .. } | Step::Antijoin { rel, pattern } = step {
                *rel = rename(*rel, pattern);
            }
        }
        rules.push(rule);
    }
    for i in 0..parts.len() as RelId {
        plan.renamed.insert(base + 2 * i, truth);
        plan.renamed.insert(base + 2 * i + 1, next);
    }
    plan.components = Arc::new(components(&mut rules, (base as usize) + 2 * parts.len()));
    plan.rules = rules;
    plan
}

/// The program's `true` and `next` relations, if it has both.
pub fn state_relations(program: &Program) -> Option<(RelId, RelId)> {
    let relation = |k: Keyword, arity: usize| {
        let rel = program.relation(k.name(), arity)?;
        (program.keyword(rel) == Some(k)).then_some(rel)
    };
    Some((relation(Keyword::True, 1)?, relation(Keyword::Next, 1)?))
}

/// The first tokens of the state's patterns in `plan`'s rules (not the dynamics rules), or
/// `None` if one is a variable, or if a dynamics rule of `true` is not a plain copy.
fn parts(plan: &Plan, truth: RelId, next: RelId) -> Option<BTreeSet<Token>> {
    let mut parts = BTreeSet::new();
    for rule in &plan.rules {
        if rule.source.is_none() {
            let copies = rule.copies().is_some() && matches!(rule.head[..], [Item::Var(_)]);
            if rule.head_rel == truth && !copies {
                return None;
            }
            continue;
        }
        let literals = rule.steps.iter().filter_map(|step| match step {
            Step::Join { rel, pattern, .. } | Step::Antijoin { rel, pattern } => {
                Some((*rel, pattern))
            }
            _ => None,
        });
        for (rel, pattern) in literals.chain([(rule.head_rel, &*rule.head)]) {
            if rel != truth && rel != next {
                continue;
            }
            match pattern.first() {
                Some(&Item::Tok(token)) => parts.insert(token),
                _ => return None,
            };
        }
    }
    Some(parts)
}

/// The rule `head(f(X1..Xn)) :- from(f(X1..Xn))` for fluent functor `token`.
fn copy(token: Token, head: RelId, from: RelId, arities: &[u32]) -> RulePlan {
    let arity = token_arity(token, arities) as VarId;
    let vars: Vec<VarId> = (0..arity).collect();
    let pattern: Pattern = std::iter::once(Item::Tok(token))
        .chain(vars.iter().map(|&v| Item::Var(v)))
        .collect();
    RulePlan {
        source: None,
        head_rel: head,
        head: Arc::new(pattern.clone()),
        steps: Arc::new(vec![Step::Join {
            rel: from,
            pattern,
            key: Vec::new(),
            new: vars.clone(),
        }]),
        binding: vars.into(),
        vars: arity as usize,
        recursive: false,
        memo_id: None,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::engine::plan::Part;
    use crate::engine::stats::Stats;
    use crate::load::{load, source_from_bytes};
    use crate::program::encoding::Encoding;
    use crate::syntax::Syntax;

    /// A board that fills in two moves and a step counter that counts to 5 on its own.
    const GAME: &str = "
        (role r) (init (step 1)) (init (cell 0)) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
        (<= (legal r (fill ?y)) (true (cell ?x)) (succ ?x ?y))
        (<= (next (cell ?y)) (does r (fill ?y)))
        (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
        (<= terminal (true (step 5))) (goal r 100)
    ";

    /// The plan of `text` before and after splitting, and its program.
    pub(in crate::engine) fn plans(text: &str) -> (Plan, Plan, Program) {
        let source =
            source_from_bytes("game.kif".into(), text.as_bytes().to_vec(), Syntax::Kif).unwrap();
        let program = load(source, Syntax::Kif).unwrap().program;
        let encoding = Encoding::new(&program);
        let stats = Stats::new(Default::default(), std::sync::Arc::new(encoding.arities()));
        let plan = Plan::new(&program, &encoding, Part::Rest, &stats);
        (plan.clone(), split(plan, &program), program)
    }

    /// The relation names of each recursive component.
    pub(in crate::engine) fn loops(plan: &Plan, program: &Program) -> Vec<Vec<String>> {
        (plan.components.iter().filter(|c| c.recursive))
            .map(|c| {
                let name = |&r: &RelId| program.relation_name(plan.original(r)).to_string();
                c.relations.iter().map(name).collect()
            })
            .collect()
    }

    #[test]
    fn a_step_counter_is_a_component_apart_from_the_board() {
        let (whole, split, program) = plans(GAME);
        let mut before = loops(&whole, &program);
        before.iter_mut().for_each(|c| c.sort());
        assert_eq!(before, [["does", "legal", "next", "true"]]);
        let mut after = loops(&split, &program);
        after.iter_mut().for_each(|c| c.sort());
        after.sort();
        assert_eq!(
            after,
            [vec!["does", "legal", "next", "true"], vec!["next", "true"]]
        );
    }

    #[test]
    fn a_variable_fluent_leaves_the_state_whole() {
        let frame = format!("{GAME} (<= (next ?f) (true ?f) (not (true (step 5))))");
        let (whole, split, program) = plans(&frame);
        assert!(split.renamed.is_empty());
        assert_eq!(loops(&whole, &program), loops(&split, &program));
    }
}
