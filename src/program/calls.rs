//! Rules bound by their calls (GDL.md §3.1).
//!
//! Games written for top-down reasoners have rules that are unsafe bottom-up although every
//! call binds the variable: `(<= (legal ?player noop))`, Stanford's `goal(Role,N) :-
//! score(N)`, `score(R,N) :- countofall(…)` read only by `goal(R,N) :- role(R) & score(R,N)`.
//! Such a rule gets a first literal over a new relation, `goal_called(Role)`, whose rules
//! derive every call: one per literal that reads the rule's relation, from that rule's other
//! positive literals (which bind the call's arguments, or the rule is left unsafe), and for
//! `legal` and `goal`, whose first argument the game's semantics asks for each role, one from
//! `role`. The rule then has an instance per call and is safe; the new relation is an
//! ordinary relation of the ground game. A rule some call leaves unbound is left as it is,
//! for the safety check to reject.

use super::check::unbound_given;
use super::project::{push_new, rename};
use super::{Atom, Keyword, Literal, Model, Origin, Program, RelId, Rule, Sym, Term, VarId};
use crate::hash::FastMap;
use crate::syntax::{Code, Diagnostic, Span};

/// At most this many calls get a note of their own in a warning.
const MAX_CALL_NOTES: usize = 4;

/// What binding rules by their calls did.
#[derive(Default)]
pub(super) struct Bound {
    /// One warning per statement whose rules are now ground over their calls.
    pub(super) warnings: Vec<Diagnostic>,
    /// Those statements: their safety is to be checked again.
    pub(super) statements: Vec<Span>,
}

/// Where the bindings of a relation's calls come from.
#[derive(Clone, Copy)]
enum Source {
    /// The game's semantics, which asks for each role.
    Roles,
    /// Body literal `literal` of rule `rule`.
    Literal { rule: usize, literal: usize },
}

/// Binds by their calls the rules of `program` from the statements at `unsafe_statements`
/// whose unbound variables are head arguments that every call binds; `ids` are the
/// program's relation ids, which the new relations join.
pub(super) fn bind_by_calls(
    program: &mut Program,
    ids: &mut FastMap<(Sym, usize), RelId>,
    unsafe_statements: &[Span],
) -> Bound {
    let mut pending = candidates(program, unsafe_statements);
    let mut bound = Bound::default();
    // A rule whose callers are themselves bound by their calls is bound once they are.
    while let Some(at) = (0..pending.len()).find_map(|i| {
        let (rel, positions) = &pending[i];
        sources(program, *rel, positions, &pending).map(|s| (i, s))
    }) {
        let (rel, positions) = pending.swap_remove(at.0);
        rewrite(program, ids, rel, &positions, &at.1, &mut bound);
    }
    bound
}

/// The relations, with the head positions their calls must bind, of the rules from
/// `statements` that are safe once those positions are bound.
fn candidates(program: &Program, statements: &[Span]) -> Vec<(RelId, Vec<usize>)> {
    let mut out: Vec<(RelId, Vec<usize>)> = Vec::new();
    for (rule, origin) in program.rules.iter().zip(&program.rule_origins) {
        if !statements.contains(&origin.span) {
            continue;
        }
        let Some(positions) = call_positions(rule) else {
            continue;
        };
        let key = (rule.head.rel, positions);
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

/// The head positions of `rule` whose binding by its calls would make it safe, if it is
/// unsafe and they would.
fn call_positions(rule: &Rule) -> Option<Vec<usize>> {
    let unbound = unbound_given(rule, &[]);
    let positions: Vec<usize> = (rule.head.args.iter().enumerate())
        .filter(|(_, t)| mentions_any(t, &unbound))
        .map(|(p, _)| p)
        .collect();
    let safe_then = !positions.is_empty() && unbound_given(rule, &positions).is_empty();
    (!unbound.is_empty() && safe_then).then_some(positions)
}

/// Whether `t` has one of `vars`.
fn mentions_any(t: &Term, vars: &[VarId]) -> bool {
    let mut any = false;
    t.for_each_var(&mut |v| any |= vars.contains(&v));
    any
}

/// The calls of `rel`, if there are some and every one binds its arguments at `positions`; a
/// rule of a relation still `pending` binds only what its body binds.
fn sources(
    program: &Program,
    rel: RelId,
    positions: &[usize],
    pending: &[(RelId, Vec<usize>)],
) -> Option<Vec<Source>> {
    let mut sources = Vec::new();
    match program.keyword(rel) {
        Some(Keyword::Goal) if positions == [0] => sources.push(Source::Roles),
        Some(Keyword::Legal) if positions == [0] && program.model == Model::Classic => {
            sources.push(Source::Roles)
        }
        Some(_) => return None,
        None => {}
    }
    let reads_in = |literals: &[Literal]| literals.iter().any(|l| reads(l, rel));
    let operations = program.operations.iter();
    if operations.map(|o| &o.conditions).any(|c| reads_in(c)) {
        return None;
    }
    for (r, rule) in program.rules.iter().enumerate() {
        let own = rule.head.rel == rel && pending.contains(&(rel, positions.to_vec()));
        for (i, literal) in rule.body.iter().enumerate() {
            let atom = match literal {
                Literal::Pos(a) | Literal::Neg(a) if a.rel == rel => a,
                Literal::Count { condition, .. } if reads_in(condition) => return None,
                _ => continue,
            };
            let bound = |v: VarId| {
                let by_head = own
                    && positions
                        .iter()
                        .any(|&p| mentions_any(&rule.head.args[p], &[v]));
                by_head
                    || binding_literals(rule, i)
                        .any(|a| a.args.iter().any(|t| mentions_any(t, &[v])))
            };
            let mut all = true;
            positions
                .iter()
                .for_each(|&p| atom.args[p].for_each_var(&mut |v| all &= bound(v)));
            if !all {
                return None;
            }
            sources.push(Source::Literal {
                rule: r,
                literal: i,
            });
        }
    }
    // A relation nothing calls has no instances to ground over: its rule stays unsafe.
    (!sources.is_empty()).then_some(sources)
}

/// Whether `literal` reads `rel`, inside a `countofall` too.
fn reads(literal: &Literal, rel: RelId) -> bool {
    match literal {
        Literal::Pos(a) | Literal::Neg(a) => a.rel == rel,
        Literal::Builtin { .. } => false,
        Literal::Count { condition, .. } => condition.iter().any(|l| reads(l, rel)),
    }
}

/// The positive relation literals of `rule` but its `skip`th: what binds a call it makes.
fn binding_literals(rule: &Rule, skip: usize) -> impl Iterator<Item = &Atom> {
    (rule.body.iter().enumerate()).filter_map(move |(i, l)| match l {
        Literal::Pos(a) if i != skip => Some(a),
        _ => None,
    })
}

/// Gives the rules of `rel` a first literal over a new relation of their calls at
/// `positions`, defined by a rule per source; records the warnings in `bound`.
fn rewrite(
    program: &mut Program,
    ids: &mut FastMap<(Sym, usize), RelId>,
    rel: RelId,
    positions: &[usize],
    sources: &[Source],
    bound: &mut Bound,
) {
    let calls = called_relation(program, ids, rel, positions.len());
    let rules: Vec<usize> = (0..program.rules.len())
        .filter(|&r| {
            let rule = &program.rules[r];
            rule.head.rel == rel && call_positions(rule).as_deref() == Some(positions)
        })
        .collect();
    let call_of = |rule: &Rule| Atom {
        rel: calls,
        args: positions
            .iter()
            .map(|&p| rule.head.args[p].clone())
            .collect(),
    };
    let mut new_rules = Vec::new();
    for &source in sources {
        let made = match source {
            Source::Roles => role_rule(program, calls),
            Source::Literal { rule, literal } => {
                let reader = &program.rules[rule];
                let (Literal::Pos(atom) | Literal::Neg(atom)) = &reader.body[literal] else {
                    continue;
                };
                let head = Atom {
                    rel: calls,
                    args: positions.iter().map(|&p| atom.args[p].clone()).collect(),
                };
                let mut body: Vec<Literal> = Vec::new();
                let mut spans = Vec::new();
                let origin = &program.rule_origins[rule];
                if rules.contains(&rule) {
                    body.push(Literal::Pos(call_of(reader)));
                    spans.push(origin.head_span);
                }
                for (i, l) in reader.body.iter().enumerate() {
                    if matches!(l, Literal::Pos(_)) && i != literal {
                        body.push(l.clone());
                        spans.push(origin.literal_spans.get(i).copied().unwrap_or(origin.span));
                    }
                }
                Some(renumbered(Rule { head, body }, origin, spans))
            }
        };
        new_rules.extend(made);
    }
    for &r in &rules {
        let statement = program.rule_origins[r].span;
        if !bound.statements.contains(&statement) {
            bound.statements.push(statement);
            bound.warnings.push(warning(program, r, positions, sources));
        }
    }
    for &r in &rules {
        let call = Literal::Pos(call_of(&program.rules[r]));
        program.rules[r].body.insert(0, call);
        let origin = &mut program.rule_origins[r];
        origin.literal_spans.insert(0, origin.head_span);
    }
    for (rule, origin) in new_rules {
        program.rules.push(rule);
        program.rule_origins.push(origin);
    }
}

/// A new relation for the calls of `rel`: `rel_called`, numbered if the name is taken.
fn called_relation(
    program: &mut Program,
    ids: &mut FastMap<(Sym, usize), RelId>,
    rel: RelId,
    arity: usize,
) -> RelId {
    let base = format!("{}_called", program.relation_name(rel));
    let taken = |program: &Program, name: &str| {
        (program.symbols.get(name)).is_some_and(|s| program.relations.iter().any(|r| r.name == s))
    };
    let name = (1..)
        .map(|n| match n {
            1 => base.clone(),
            n => format!("{base}_{n}"),
        })
        .find(|name| !taken(program, name))
        .expect("some name is free");
    let sym = program.symbols.intern(&name);
    let span = program
        .relation_spans
        .get(rel as usize)
        .copied()
        .unwrap_or_default();
    program.add_relation(ids, sym, arity, span)
}

/// `calls(R) :- role(R)`, if the game has roles.
fn role_rule(program: &Program, calls: RelId) -> Option<(Rule, Origin)> {
    let role = program.relation("role", 1)?;
    let r = || Box::new([Term::Var(0)]) as Box<[Term]>;
    let rule = Rule {
        head: Atom {
            rel: calls,
            args: r(),
        },
        body: vec![Literal::Pos(Atom {
            rel: role,
            args: r(),
        })],
    };
    let span = program
        .relation_spans
        .get(role as usize)
        .copied()
        .unwrap_or_default();
    let origin = Origin {
        span,
        head_span: span,
        literal_spans: vec![span],
        var_names: vec!["R".into()],
        var_spans: vec![span],
    };
    Some((rule, origin))
}

/// `rule` (made from the rule of `origin`, whose literals are at `spans`) with its
/// variables numbered from 0 in order of occurrence, and its origin.
fn renumbered(rule: Rule, origin: &Origin, spans: Vec<Span>) -> (Rule, Origin) {
    let mut order: Vec<VarId> = Vec::new();
    let head = Literal::Pos(rule.head);
    for literal in std::iter::once(&head).chain(&rule.body) {
        if let Literal::Pos(a) | Literal::Neg(a) = literal {
            for t in a.args.iter() {
                t.for_each_var(&mut |v| push_new(&mut order, v));
            }
        }
    }
    let new = |v: VarId| order.iter().position(|&w| w == v).unwrap_or(0) as VarId;
    let Literal::Pos(head) = rename(&head, &new) else {
        unreachable!("a positive literal renames to one")
    };
    let body = rule.body.iter().map(|l| rename(l, &new)).collect();
    let origin = origin.renumbered(&order, origin.head_span, spans);
    (Rule { head, body }, origin)
}

/// The warning for rule `r`, ground over the calls from `sources` at `positions`.
fn warning(program: &Program, r: usize, positions: &[usize], sources: &[Source]) -> Diagnostic {
    let (rule, origin) = (&program.rules[r], &program.rule_origins[r]);
    let mut vars = Vec::new();
    for &p in positions {
        rule.head.args[p].for_each_var(&mut |v| {
            let shown = format!("`{}`", origin.shown_var(v));
            if !vars.contains(&shown) {
                vars.push(shown);
            }
        });
    }
    let name = program.relation_name(rule.head.rel);
    let mut d = Diagnostic::warning(
        Code::CallBound,
        origin.head_span,
        format!(
            "{} is bound by no literal of the body, only by every call of `{name}`: the rule is \
             ground over its calls",
            vars.join(", ")
        ),
    );
    for source in sources.iter().take(MAX_CALL_NOTES) {
        d = match *source {
            Source::Roles => d.with_note(None, format!("the game asks `{name}` for each role")),
            Source::Literal { rule, literal } => {
                let o = &program.rule_origins[rule];
                d.with_note(o.literal_spans.get(literal).copied(), "called here")
            }
        };
    }
    if sources.len() > MAX_CALL_NOTES {
        let more = sources.len() - MAX_CALL_NOTES;
        d = d.with_note(None, format!("and {more} more calls"));
    }
    d.with_hint("players that reason bottom-up need a positive literal that binds it")
}

#[cfg(test)]
mod tests {
    use crate::program::{lower, Model};
    use crate::syntax::{parse, Code, Diagnostic, SourceFile, Syntax};

    /// The codes of the diagnostics of `rules` after a minimal game's, and their text.
    fn codes(rules: &str) -> (Vec<Code>, String) {
        let text = format!("(role a) (role b) (init p) (<= terminal (true p))\n{rules}");
        let file = SourceFile::new("t.kif", text);
        let parsed = parse(&file, Syntax::Kif);
        let (_, diags) = lower(&parsed.statements, Model::Classic);
        let shown = diags.iter().map(|d| d.render(&file)).collect();
        (diags.iter().map(|d: &Diagnostic| d.code).collect(), shown)
    }

    #[test]
    fn a_head_variable_the_game_asks_for_each_role_is_bound_by_the_calls() {
        let (codes, text) = codes("(<= (legal ?p noop))\n(<= (goal ?r 100) (v 100))\n(v 100)\n");
        assert_eq!(codes, [Code::CallBound, Code::CallBound], "{text}");
        assert!(
            text.contains("t.kif:2:5: warning[W012]: `?p` is bound by no literal"),
            "{text}"
        );
        assert!(
            text.contains("the game asks `legal` for each role"),
            "{text}"
        );
    }

    #[test]
    fn a_head_variable_every_reader_binds_is_bound_by_the_calls_along_a_chain() {
        let rules = "(<= (legal ?p noop) (role ?p))\n(<= (goal ?r ?n) (v ?n) (not (lost ?r)))\n\
                     (<= (lost ?r) (not (alive ?r)))\n(<= (alive ?r) (true (alive ?r)))\n(v 50)\n";
        let (codes, text) = codes(rules);
        assert_eq!(codes, [Code::CallBound, Code::CallBound], "{text}");
        assert!(text.contains("only by every call of `goal`"), "{text}");
        assert!(text.contains("only by every call of `lost`"), "{text}");
        assert!(text.contains("t.kif:3:30: called here"), "{text}");
    }

    #[test]
    fn a_call_that_leaves_the_variable_unbound_or_no_call_at_all_keeps_the_error() {
        let unbound_call = "(<= (legal ?p noop) (role ?p))\n(<= (goal ?r 100) (role ?r) (q ?x))\n\
                            (<= (q ?x) (v 1))\n(v 1)\n";
        assert_eq!(codes(unbound_call).0, [Code::Unsafe]);
        let uncalled = "(<= (legal ?p noop) (role ?p))\n(<= (goal ?r 100) (role ?r))\n\
                        (<= (q ?x) (v 1))\n(v 1)\n";
        assert_eq!(codes(uncalled).0, [Code::Unsafe]);
        // The game's semantics asks for a move with the move unbound.
        assert_eq!(
            codes("(<= (legal a ?m))\n(<= (goal ?r 100) (role ?r))\n").0,
            [Code::Unsafe]
        );
    }
}
