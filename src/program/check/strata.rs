//! Stratification: no relation may depend on itself through negation or counting
//! (GDL.md §1), since both need the complete extension of the relation they look at.
//!
//! The relation graph is refined to rules where it has a negative cycle: a body atom leads to a
//! rule only if it unifies with the rule's head. So `goal(R,0) :- role(R) & ~goal(R,100)`,
//! common in real games, is accepted: no instance of `goal(R,0)` depends on itself. Such a
//! program is stratified on ground atoms (locally stratified), not on relations.

use super::graph::{body_atoms, literal_span, shortest_path, Dependency, Edge, Graph};
use super::unify::unifiable;
use super::{path_text, MAX_STEP_NOTES};
use crate::graph::components;
use crate::program::{Program, RelId};
use crate::syntax::{Code, Diagnostic};
use std::collections::HashMap;

/// One error per strongly connected component of the relation graph that holds a cycle through
/// negation or counting among its rules, printing one such cycle.
pub(super) fn check(program: &Program, graph: &Graph) -> Vec<Diagnostic> {
    let components = graph.components();
    let mut done = vec![false; components.len()];
    let mut out = Vec::new();
    for (rel, &component) in components.iter().enumerate() {
        let Some(seen) = done.get_mut(component as usize) else {
            continue;
        };
        let negative = graph
            .edges(rel as RelId)
            .iter()
            .any(|e| e.kind.is_negative() && components.get(e.to as usize) == Some(&component));
        if *seen || !negative {
            continue;
        }
        *seen = true;
        if let Some(cycle) = rule_cycle(program, &components, component) {
            out.push(diagnostic(program, &cycle));
        }
    }
    out
}

/// A cycle through negation or counting among the rules whose heads are in relation component
/// `component`, where a body atom leads to a rule when it unifies with the rule's head. The
/// first step is the negative one; each step is the relation it leaves and the edge taken.
fn rule_cycle(
    program: &Program,
    relation_components: &[u32],
    component: u32,
) -> Option<Vec<(RelId, Edge)>> {
    let inside = |rel: RelId| relation_components.get(rel as usize) == Some(&component);
    // Facts depend on nothing, so they are in no cycle.
    let rules: Vec<usize> = (0..program.rules.len())
        .filter(|&r| !program.rules[r].body.is_empty() && inside(program.rules[r].head.rel))
        .collect();
    let mut by_head: HashMap<RelId, Vec<usize>> = HashMap::new();
    for (local, &r) in rules.iter().enumerate() {
        by_head
            .entry(program.rules[r].head.rel)
            .or_default()
            .push(local);
    }
    // The successors of each rule: the rules its body atoms unify with, and the edge.
    let successors: Vec<Vec<(usize, Edge)>> = rules
        .iter()
        .map(|&r| {
            let rule = &program.rules[r];
            let mut edges = Vec::new();
            for (i, atom, kind) in body_atoms(rule) {
                let Some(targets) = by_head.get(&atom.rel) else {
                    continue;
                };
                let span = program
                    .rule_origins
                    .get(r)
                    .map(|o| literal_span(o, i))
                    .unwrap_or_default();
                for &target in targets {
                    let head = &program.rules[rules[target]].head;
                    if unifiable(&program.terms, &atom.args, &head.args) {
                        let edge = Edge {
                            to: atom.rel,
                            kind,
                            rule: r,
                            span,
                        };
                        edges.push((target, edge));
                    }
                }
            }
            edges
        })
        .collect();
    let successor = |v: usize, i: usize| successors[v].get(i).map(|e| e.0);
    let rule_components = components(rules.len(), successor);
    for (v, edges) in successors.iter().enumerate() {
        for &(w, edge) in edges {
            if !edge.kind.is_negative() || rule_components[v] != rule_components[w] {
                continue;
            }
            let head = |x: usize| program.rules[rules[x]].head.rel;
            let mut cycle = vec![(head(v), edge)];
            if w != v {
                let back = shortest_path(
                    rules.len(),
                    w,
                    successor,
                    |x| x == v,
                    |x| rule_components[x] == rule_components[v],
                )
                .unwrap_or_default();
                cycle.extend(back.into_iter().map(|(x, i)| (head(x), successors[x][i].1)));
            }
            return Some(cycle);
        }
    }
    None
}

/// The error for `cycle`, whose first edge is the negative one.
fn diagnostic(program: &Program, cycle: &[(RelId, Edge)]) -> Diagnostic {
    let name = |r: RelId| program.relation_name(r);
    let counting = cycle.iter().any(|(_, e)| e.kind == Dependency::Count);
    let mut steps: Vec<String> = cycle
        .first()
        .map(|(start, _)| name(*start).to_string())
        .into_iter()
        .collect();
    for (_, edge) in cycle {
        let mark = match edge.kind {
            Dependency::Positive => "",
            Dependency::Negative => "~",
            Dependency::Count => "count ",
        };
        steps.push(format!("{mark}{}", name(edge.to)));
    }
    let what = if counting {
        "negation or counting"
    } else {
        "negation"
    };
    let main = cycle.first().map(|(_, e)| e.span).unwrap_or_default();
    let mut d = Diagnostic::error(
        Code::Unstratified,
        main,
        format!("recursion through {what}: {}", path_text(&steps)),
    );
    // The first edge is the main span; the notes follow the cycle from there.
    for (from, edge) in cycle.iter().skip(1).take(MAX_STEP_NOTES) {
        let how = match edge.kind {
            Dependency::Positive => "uses",
            Dependency::Negative => "uses the negation of",
            Dependency::Count => "counts",
        };
        d = d.with_note(
            Some(edge.span),
            format!("`{}` {how} `{}` here", name(*from), name(edge.to)),
        );
    }
    if cycle.len() > MAX_STEP_NOTES + 1 {
        d = d.with_note(
            None,
            format!("and {} more steps", cycle.len() - MAX_STEP_NOTES - 1),
        );
    }
    let (negating, negated) = cycle
        .first()
        .map_or(("", ""), |(from, e)| (name(*from), name(e.to)));
    let verb = match cycle.first().map(|(_, e)| e.kind) {
        Some(Dependency::Count) => "counts",
        _ => "negates",
    };
    d.with_hint(format!(
        "`{negating}` {verb} `{negated}`, so `{negated}` must not depend on `{negating}`, \
         directly or through other relations"
    ))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check, check_hrf, codes, GAME, HRF_GAME};
    use crate::syntax::Code;

    #[test]
    fn negative_cycle_is_reported_once_with_its_path() {
        let (file, diags) = check(&format!(
            "{GAME}(<= (test ?x) (not (test2 ?x)) (test3 ?x))\n\
             (<= (test2 ?x) (test ?x))\n\
             (<= (test2 ?x) (test3 ?x) (test ?x))\n\
             (test3 a)\n"
        ));
        assert_eq!(codes(&diags), [Code::Unstratified]);
        let text = diags[0].render(&file);
        assert!(
            text.contains("error[E003]: recursion through negation: test → ~test2 → test"),
            "{text}"
        );
        assert!(text.starts_with("t.kif:5:20: error[E003]"), "{text}");
        assert!(text.contains("note: t.kif:6:16: "), "{text}");
        assert!(
            text.contains("hint: `test` negates `test2`, so `test2` must not depend on `test`"),
            "{text}"
        );
        assert!(text.contains("`test2` uses `test` here"), "{text}");
        assert!(text.contains("hint: "), "{text}");
    }

    #[test]
    fn self_negation_is_a_cycle() {
        let (file, diags) = check(&format!("{GAME}(<= p (not p))\n"));
        assert_eq!(codes(&diags), [Code::Unstratified]);
        assert!(diags[0]
            .render(&file)
            .contains("recursion through negation: p → ~p\n"));
    }

    #[test]
    fn longer_cycles_and_separate_components() {
        let (file, diags) = check(&format!(
            "{GAME}(<= a b) (<= b c) (<= c (not a))\n\
             (<= x (not y)) (<= y x)\n"
        ));
        assert_eq!(codes(&diags), [Code::Unstratified, Code::Unstratified]);
        let all: String = diags.iter().map(|d| d.render(&file)).collect();
        assert!(all.contains("c → ~a → b → c"), "{all}");
        assert!(all.contains("x → ~y → x"), "{all}");
    }

    #[test]
    fn stratified_negation_and_positive_recursion_pass() {
        let (_, diags) = check(&format!(
            "{GAME}(q a) (<= (p ?x) (q ?x) (not (r ?x))) (r b)\n\
             (<= (path ?x ?y) (edge ?x ?y)) (<= (path ?x ?z) (edge ?x ?y) (path ?y ?z))\n\
             (edge a b) (<= (next (s ?x)) (true (s ?x)) (not (p ?x)))\n"
        ));
        assert_eq!(codes(&diags), []);
    }

    #[test]
    fn negation_of_other_instances_is_not_a_cycle() {
        let (_, diags) = check(
            "(role robot) (legal robot x) terminal (index 1)\n\
             (<= (goal robot 100) (true (done)))\n\
             (<= (goal robot 0) (not (goal robot 100)))\n\
             (<= (goal robot 50) (not (goal robot 100)) (not (goal robot 0)))\n",
        );
        assert_eq!(codes(&diags), []);
    }

    #[test]
    fn negation_of_unifiable_instances_is_a_cycle() {
        let (file, diags) = check(
            "(role robot) (legal robot x) terminal (index 1)\n\
             (<= (goal robot 100) (index ?x) (not (goal robot ?x)))\n\
             (<= (p a) (index ?x) (not (p ?x)))\n\
             (<= (q ?x ?y) (r ?x ?y)) (<= (r a b) (not (q b b)))\n",
        );
        assert_eq!(codes(&diags), [Code::Unstratified; 3]);
        let all: String = diags.iter().map(|d| d.render(&file)).collect();
        assert!(all.contains("goal → ~goal"), "{all}");
        assert!(all.contains("p → ~p"), "{all}");
        // Each step unifies on its own; the refinement does not follow bindings along the
        // cycle, so this one is reported although no ground atom depends on its negation.
        assert!(all.contains("r → ~q → r"), "{all}");
    }

    #[test]
    fn next_and_true_make_no_cycle() {
        let (_, diags) = check(&format!(
            "{GAME}(init (c 1)) (<= (next (c ?x)) (not (true (c ?x))) (true (d ?x)))\n"
        ));
        assert_eq!(codes(&diags), []);
    }

    #[test]
    fn long_chains_do_not_overflow_the_stack() {
        let mut text = String::from(GAME);
        for i in 0..20_000 {
            text.push_str(&format!("(<= r{i} r{})\n", i + 1));
        }
        text.push_str("(<= r20000 (not r0))\n");
        let (file, diags) = check(&text);
        assert_eq!(codes(&diags), [Code::Unstratified]);
        let text = diags[0].render(&file);
        assert!(text.contains("r20000 → ~r0 → r1 → r2"), "{text}");
        assert!(
            text.contains("(19990 more) → r19997 → r19998 → r19999 → r20000\n"),
            "{text}"
        );
        assert!(text.lines().count() < 60, "{text}");
    }

    #[test]
    fn counting_is_a_negative_dependency() {
        let (file, diags) = check_hrf(&format!(
            "{HRF_GAME}q(1)\np(X) :- q(X)\np(N) :- countofall(X, p(X), N)\n\
             r(N) :- countofall(X, q(X), N)\n"
        ));
        assert_eq!(codes(&diags), [Code::Unstratified]);
        let text = diags[0].render(&file);
        assert!(
            text.contains("recursion through negation or counting: p → count p\n"),
            "{text}"
        );
        assert!(text.contains("hint: `p` counts `p`"), "{text}");
    }
}
