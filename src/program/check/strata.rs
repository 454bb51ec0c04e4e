//! Stratification: no relation may depend on itself through negation or counting
//! (GDL.md §1), since both need the complete extension of the relation they look at.

use super::graph::{Dependency, Edge, Graph};
use crate::program::{Program, RelId};
use crate::syntax::{Code, Diagnostic};

/// One error per strongly connected component of the dependency graph that holds a negative
/// or counting edge, printing one cycle through that edge.
pub(super) fn check(program: &Program, graph: &Graph) -> Vec<Diagnostic> {
    let components = graph.components();
    let mut reported = vec![false; components.len()];
    let mut out = Vec::new();
    for rel in 0..program.relations.len() {
        let component = components[rel];
        let rel = rel as RelId;
        for edge in graph.edges(rel) {
            let inside = components.get(edge.to as usize) == Some(&component);
            let Some(done) = reported.get_mut(component as usize) else {
                continue;
            };
            if !edge.kind.is_negative() || !inside || *done {
                continue;
            }
            *done = true;
            let back = if edge.to == rel {
                Vec::new()
            } else {
                graph
                    .path(
                        edge.to,
                        |r| r == rel,
                        |r| components.get(r as usize) == Some(&component),
                    )
                    .unwrap_or_default()
            };
            let mut cycle = vec![(rel, *edge)];
            cycle.extend(back);
            out.push(diagnostic(program, &cycle));
        }
    }
    out
}

/// The error for `cycle`, whose first edge is the negative one.
fn diagnostic(program: &Program, cycle: &[(RelId, Edge)]) -> Diagnostic {
    let name = |r: RelId| program.relation_name(r);
    let counting = cycle.iter().any(|(_, e)| e.kind == Dependency::Count);
    let mut shown = match cycle.first() {
        Some((start, _)) => name(*start).to_string(),
        None => String::new(),
    };
    for (_, edge) in cycle {
        let mark = match edge.kind {
            Dependency::Positive => "",
            Dependency::Negative => "~",
            Dependency::Count => "count ",
        };
        shown.push_str(&format!(" → {mark}{}", name(edge.to)));
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
        format!("recursion through {what}: {shown}"),
    );
    for (from, edge) in cycle {
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
    let first = cycle.first().map_or("", |(_, e)| name(e.to));
    d.with_hint(format!(
        "a relation cannot depend on its own negation or count; define `{first}` without \
         depending back on the relations that {} it",
        if counting { "negate or count" } else { "negate" }
    ))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check, codes, GAME};
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
        assert!(text.contains("note: t.kif:5:"), "{text}");
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
        assert!(diags[0].render(&file).contains("r20000 → ~r0 → r1"));
    }
}
