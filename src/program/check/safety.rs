//! Safety: every variable of a rule must be bound (GDL.md §1).
//!
//! A variable is bound when it occurs in a positive relation literal of the body; built-ins
//! then bind more by fixpoint (a built-in whose inputs of one of its [`Builtin::modes`] are bound
//! binds its other variable arguments), and `countofall` binds its result once the variables it
//! shares with the rest of the rule are bound. Variables that occur only inside one
//! `countofall` are local to it: its condition must bind them. In an operation rule the
//! action's variables are bound, the conditions are the body and the effects must be bound.

use crate::program::{Builtin, Effect, Literal, Model, Origin, Program, Rule, Term, VarId};
use crate::syntax::{Code, Diagnostic, Span};
use std::collections::HashSet;

/// One error per unsafe variable and source statement.
pub(super) fn check(program: &Program) -> Vec<Diagnostic> {
    check_where(program, |_| true)
}

/// [`check`] for the rules and operations whose origin `keep` accepts.
pub(super) fn check_where(program: &Program, keep: impl Fn(&Origin) -> bool) -> Vec<Diagnostic> {
    let mut reported: HashSet<(Span, String)> = HashSet::new();
    let mut out = Vec::new();
    let rules = program.rules.iter().zip(&program.rule_origins);
    for (rule, origin) in rules.filter(|(_, o)| keep(o)) {
        let mut unbound = Vec::new();
        let mut head = VarSet::default();
        for t in rule.head.args.iter() {
            head.add_term(t);
        }
        let bound = conjunction(
            &rule.body,
            &origin.literal_spans,
            origin.head_span,
            &head,
            &VarSet::default(),
            &mut unbound,
        );
        for arg in rule.head.args.iter() {
            unbound_in(arg, &bound, origin.head_span, "the head", &mut unbound);
        }
        report(program.model, origin, &unbound, &mut reported, &mut out);
    }
    let operations = program.operations.iter().zip(&program.operation_origins);
    for (operation, origin) in operations.filter(|(_, o)| keep(o)) {
        let mut unbound = Vec::new();
        let mut action = VarSet::default();
        action.add_term(&operation.action);
        let mut outside = action.clone();
        for effect in &operation.effects {
            outside.add_term(effect_term(effect));
        }
        let bound = conjunction(
            &operation.conditions,
            &origin.literal_spans,
            origin.head_span,
            &outside,
            &action,
            &mut unbound,
        );
        for (i, effect) in operation.effects.iter().enumerate() {
            let span = origin
                .literal_spans
                .get(operation.conditions.len() + i)
                .copied()
                .unwrap_or(origin.span);
            unbound_in(effect_term(effect), &bound, span, "an effect", &mut unbound);
        }
        report(program.model, origin, &unbound, &mut reported, &mut out);
    }
    out
}

/// The variables of `rule` left unbound when the variables of its head arguments at
/// `given` are taken as bound (by the rule's calls), each once.
pub(crate) fn unbound_given(rule: &Rule, given: &[usize]) -> Vec<VarId> {
    let mut head = VarSet::default();
    let mut bound_by_calls = VarSet::default();
    for (p, t) in rule.head.args.iter().enumerate() {
        head.add_term(t);
        if given.contains(&p) {
            bound_by_calls.add_term(t);
        }
    }
    let mut unbound = Vec::new();
    let span = Span::default();
    let bound = conjunction(&rule.body, &[], span, &head, &bound_by_calls, &mut unbound);
    for arg in rule.head.args.iter() {
        unbound_in(arg, &bound, span, "the head", &mut unbound);
    }
    let mut vars: Vec<VarId> = unbound.iter().map(|u| u.var).collect();
    vars.sort_unstable();
    vars.dedup();
    vars
}

/// A variable that must be bound but is not, and the place that needs it.
struct Unbound {
    var: VarId,
    /// The literal (or head, effect) where it is needed.
    span: Span,
    /// That place in words: "the head", "a negated literal".
    place: String,
}

/// A set of the variables of one rule.
#[derive(Clone, Debug, Default)]
struct VarSet(Vec<bool>);

impl VarSet {
    /// Adds `v`, returning whether it is new.
    fn insert(&mut self, v: VarId) -> bool {
        let i = v as usize;
        if i >= self.0.len() {
            self.0.resize(i + 1, false);
        }
        !std::mem::replace(&mut self.0[i], true)
    }

    fn contains(&self, v: VarId) -> bool {
        self.0.get(v as usize).copied().unwrap_or(false)
    }

    /// Adds the variables of `t`, returning whether one is new.
    fn add_term(&mut self, t: &Term) -> bool {
        let mut changed = false;
        t.for_each_var(&mut |v| changed |= self.insert(v));
        changed
    }

    /// Whether every variable of `t` is in the set (ground terms are covered).
    fn covers(&self, t: &Term) -> bool {
        let mut all = true;
        t.for_each_var(&mut |v| all &= self.contains(v));
        all
    }

    fn iter(&self) -> impl Iterator<Item = VarId> + '_ {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, &b)| b)
            .map(|(i, _)| i as VarId)
    }
}

/// The variables of `literal`, nested `countofall`s included. Recursion is bounded by the
/// parser's nesting limit.
fn literal_vars(literal: &Literal, set: &mut VarSet) {
    match literal {
        Literal::Pos(a) | Literal::Neg(a) => a.args.iter().for_each(|t| {
            set.add_term(t);
        }),
        Literal::Builtin { args, .. } => args.iter().for_each(|t| {
            set.add_term(t);
        }),
        Literal::Count {
            template,
            condition,
            result,
        } => {
            set.add_term(template);
            set.add_term(result);
            condition.iter().for_each(|l| literal_vars(l, set));
        }
    }
}

/// The term of an effect.
fn effect_term(effect: &Effect) -> &Term {
    match effect {
        Effect::Add(t) | Effect::Delete(t) | Effect::Perform(t) => t,
    }
}

/// Records each variable of `t` missing from `bound`.
fn unbound_in(t: &Term, bound: &VarSet, span: Span, place: &str, unbound: &mut Vec<Unbound>) {
    t.for_each_var(&mut |var| {
        if !bound.contains(var) {
            unbound.push(Unbound {
                var,
                span,
                place: place.to_string(),
            });
        }
    });
}

/// The variables of one `countofall` literal: those of its template and condition, and which
/// of them are local (occur nowhere else in the rule).
struct CountVars {
    inner: VarSet,
    local: VarSet,
}

/// Checks the conjunction `literals` (spans by index, `fallback` for missing ones), with
/// `outside` the variables occurring outside it in the rule and `given` those already bound.
/// Records what is unbound and returns every variable the conjunction binds, `given` included.
fn conjunction(
    literals: &[Literal],
    spans: &[Span],
    fallback: Span,
    outside: &VarSet,
    given: &VarSet,
    unbound: &mut Vec<Unbound>,
) -> VarSet {
    let sets: Vec<VarSet> = literals
        .iter()
        .map(|l| {
            let mut set = VarSet::default();
            literal_vars(l, &mut set);
            set
        })
        .collect();
    let counts: Vec<Option<CountVars>> = literals
        .iter()
        .enumerate()
        .map(|(i, l)| count_vars(l, i, &sets, outside))
        .collect();
    let bound = bind(literals, &counts, given);
    for (i, literal) in literals.iter().enumerate() {
        let span = spans.get(i).copied().unwrap_or(fallback);
        match literal {
            Literal::Pos(_) => {}
            Literal::Neg(a) => {
                for t in a.args.iter() {
                    unbound_in(t, &bound, span, "a negated literal", unbound);
                }
            }
            Literal::Builtin { op, args, negated } => {
                let place = if *negated {
                    format!("a negated `{}`", op.name())
                } else {
                    format!("`{}`", op.name())
                };
                for t in args.iter() {
                    unbound_in(t, &bound, span, &place, unbound);
                }
            }
            Literal::Count {
                template,
                condition,
                result,
            } => {
                let Some(Some(count)) = counts.get(i) else {
                    continue;
                };
                for var in sets[i].iter() {
                    if !count.local.contains(var) && !bound.contains(var) {
                        unbound.push(Unbound {
                            var,
                            span,
                            place: "`countofall`".into(),
                        });
                    }
                }
                let mut inner_outside = outside.clone();
                for (j, set) in sets.iter().enumerate() {
                    if j != i {
                        set.iter().for_each(|v| {
                            inner_outside.insert(v);
                        });
                    }
                }
                inner_outside.add_term(template);
                inner_outside.add_term(result);
                let inner = conjunction(condition, &[], span, &inner_outside, &bound, unbound);
                unbound_in(
                    template,
                    &inner,
                    span,
                    "the template of `countofall`",
                    unbound,
                );
            }
        }
    }
    bound
}

/// The variables of `literals[i]` if it is a `countofall`, given `sets`, the variables of each
/// literal, and `outside`, those occurring outside the conjunction.
fn count_vars(literal: &Literal, i: usize, sets: &[VarSet], outside: &VarSet) -> Option<CountVars> {
    let Literal::Count {
        template,
        condition,
        result,
    } = literal
    else {
        return None;
    };
    let mut inner = VarSet::default();
    inner.add_term(template);
    condition.iter().for_each(|l| literal_vars(l, &mut inner));
    let mut local = VarSet::default();
    for var in inner.iter() {
        let elsewhere = outside.contains(var)
            || sets
                .iter()
                .enumerate()
                .any(|(j, set)| j != i && set.contains(var))
            || {
                let mut in_result = false;
                result.for_each_var(&mut |v| in_result |= v == var);
                in_result
            };
        if !elsewhere {
            local.insert(var);
        }
    }
    Some(CountVars { inner, local })
}

/// The variables `literals` bind, starting from `given`, by fixpoint.
fn bind(literals: &[Literal], counts: &[Option<CountVars>], given: &VarSet) -> VarSet {
    let mut bound = given.clone();
    loop {
        let mut changed = false;
        for (i, literal) in literals.iter().enumerate() {
            match literal {
                Literal::Pos(a) => {
                    for t in a.args.iter() {
                        changed |= bound.add_term(t);
                    }
                }
                Literal::Neg(_) => {}
                Literal::Builtin {
                    op,
                    args,
                    negated: false,
                } => changed |= bind_builtin(*op, args, &mut bound),
                Literal::Builtin { negated: true, .. } => {}
                Literal::Count { result, .. } => {
                    let Some(Some(count)) = counts.get(i) else {
                        continue;
                    };
                    let ready = count
                        .inner
                        .iter()
                        .all(|v| count.local.contains(v) || bound.contains(v));
                    if let (true, Term::Var(v)) = (ready, result) {
                        changed |= bound.insert(*v);
                    }
                }
            }
        }
        if !changed {
            return bound;
        }
    }
}

/// Binds the variable arguments of a built-in whose inputs, in one of its modes, are bound.
fn bind_builtin(op: Builtin, args: &[Term], bound: &mut VarSet) -> bool {
    let mut changed = false;
    for &mask in op.modes() {
        let inputs = |p: usize| p < 8 && mask & (1 << p) != 0;
        if (args.len() < 8 && mask >> args.len() != 0)
            || !args
                .iter()
                .enumerate()
                .all(|(p, t)| !inputs(p) || bound.covers(t))
        {
            continue;
        }
        for (p, t) in args.iter().enumerate() {
            if let (false, Term::Var(v)) = (inputs(p), t) {
                changed |= bound.insert(*v);
            }
        }
    }
    changed
}

/// Turns the unbound variables of one rule into errors, once per statement and variable.
fn report(
    model: Model,
    origin: &Origin,
    unbound: &[Unbound],
    reported: &mut HashSet<(Span, String)>,
    out: &mut Vec<Diagnostic>,
) {
    for u in unbound {
        let shown = origin.shown_var(u.var);
        if !reported.insert((origin.span, shown.clone())) {
            continue;
        }
        let mut d = Diagnostic::error(
            Code::Unsafe,
            u.span,
            format!("variable `{shown}` in {} is not bound", u.place),
        );
        if let Some(&first) = origin.var_spans.get(u.var as usize) {
            if first.start < u.span.start || first.end > u.span.end {
                d = d.with_note(Some(first), format!("`{shown}` first occurs here"));
            }
        }
        let how = match model {
            Model::Classic => {
                "only positive relation literals of the body bind variables; `not` and \
                 `distinct` only test them"
            }
            Model::Operations => {
                "only positive relation literals bind variables, and built-ins such as \
                 plus(X,Y,Z) once their inputs are bound; negations and tests only test them"
            }
        };
        out.push(d.with_note(None, how).with_hint(format!(
            "add a positive literal that binds `{shown}`, such as a type relation"
        )));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check, check_hrf, codes, GAME, HRF_GAME};
    use crate::syntax::Code;

    #[test]
    fn head_variable_not_in_the_body() {
        let (file, diags) = check(&format!("{GAME}(<= (test ?x) (test ?y))\n"));
        assert_eq!(codes(&diags), [Code::Unsafe]);
        let text = diags[0].render(&file);
        assert!(
            text.starts_with("t.kif:5:5: error[E002]: variable `?x` in the head is not bound\n"),
            "{text}"
        );
        assert!(
            text.contains("hint: add a positive literal that binds `?x`"),
            "{text}"
        );
    }

    #[test]
    fn variable_only_under_not() {
        let (file, diags) = check(&format!(
            "{GAME}(<= (test ?x) (test2 ?x) (not (test3 ?y)))\n(test2 a) (test3 b)\n"
        ));
        assert_eq!(codes(&diags), [Code::Unsafe]);
        let text = diags[0].render(&file);
        assert!(
            text.starts_with(
                "t.kif:5:31: error[E002]: variable `?y` in a negated literal is not bound\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn split_disjunction_reports_once() {
        let (file, diags) = check(&format!(
            "{GAME}(<= (test ?x) (or (test2 ?x) (test3 ?y)) (or (a) (b)))\n\
             (test2 a) (test3 b) a b\n"
        ));
        assert_eq!(codes(&diags), [Code::Unsafe]);
        assert!(diags[0]
            .render(&file)
            .contains("variable `?x` in the head is not bound"));
    }

    #[test]
    fn distinct_does_not_bind() {
        let (file, diags) = check(&format!(
            "{GAME}(<= (p ?x) (q ?x) (distinct ?x ?z))\n(q a)\n"
        ));
        assert_eq!(codes(&diags), [Code::Unsafe]);
        let text = diags[0].render(&file);
        assert!(
            text.contains("variable `?z` in `distinct` is not bound"),
            "{text}"
        );
    }

    #[test]
    fn safe_rules_pass() {
        let (_, diags) = check(&format!(
            "{GAME}(q a) (r a b)\n\
             (<= (p ?x ?y) (q ?x) (r ?x ?y) (not (r ?y ?x)) (distinct ?x ?y))\n\
             (<= (s (f ?x)) (r (g ?x) ?_) (not (q ?x)))\n(<= (t ?x) (or (q ?x) (r ?x ?x)))\n"
        ));
        assert_eq!(codes(&diags), []);
    }

    #[test]
    fn anonymous_variables_in_negation_are_unsafe() {
        let (file, diags) = check(&format!(
            "{GAME}(q a) (r a b) (<= (p ?x) (q ?x) (not (r ?x ?_)))\n"
        ));
        assert_eq!(codes(&diags), [Code::Unsafe]);
        assert!(diags[0].render(&file).contains("variable `_"));
    }

    /// Renders every diagnostic of `text`, an HRF game.
    fn hrf(text: &str) -> (Vec<Code>, String) {
        let (file, diags) = check_hrf(&format!("{HRF_GAME}{text}"));
        (
            codes(&diags),
            diags.iter().map(|d| d.render(&file)).collect(),
        )
    }

    #[test]
    fn builtins_bind_their_outputs() {
        let (codes, all) = hrf("q(1)\nq(2)\n\
             s(Z) :- q(X) & q(Y) & plus(X,Y,Z)\n\
             d(X) :- q(Y) & q(Z) & minus(Z,Y,X)\n\
             e(X) :- q(Y) & plus(X,Y,5)\n\
             c(Z) :- q(X) & times(X,X,Y) & plus(Y,1,Z) & leq(Z,10)\n\
             t(Y) :- q(X) & same(X,Y)\n");
        assert_eq!(codes, [], "{all}");
    }

    #[test]
    fn builtins_without_their_inputs_do_not_bind() {
        let (codes, all) = hrf("q(1)\ns(Z) :- q(X) & plus(X,Y,Z)\nt(Z) :- q(X) & times(X,Z,4)\n");
        assert_eq!(codes, [Code::Unsafe; 3], "{all}");
        assert!(
            all.contains("t.hrf:6:16: error[E002]: variable `Y` in `plus` is not bound"),
            "{all}"
        );
        assert!(all.contains("variable `Z` in `plus` is not bound"), "{all}");
        assert!(
            all.contains("variable `Z` in `times` is not bound"),
            "{all}"
        );
    }

    #[test]
    fn countofall_binds_its_result_and_keeps_its_variables_local() {
        let (codes, all) = hrf("cell(1,a)\n\
             n(N) :- countofall(X, cell(X,Y), N)\n\
             score(R,N) :- role(R) & countofall(X, cell(X,R), N)\n\
             big(R) :- role(R) & countofall(X, cell(X,R), N) & leq(2,N)\n");
        assert_eq!(codes, [], "{all}");
        let (codes, all) = hrf("cell(1,a)\n\
             score(R,N) :- countofall(X, cell(X,R), N)\n\
             m(N) :- countofall(f(X,Z), cell(X,Y), N)\n");
        assert_eq!(codes, [Code::Unsafe; 3], "{all}");
        assert!(
            all.contains("t.hrf:6:15: error[E002]: variable `R` in `countofall` is not bound"),
            "{all}"
        );
        assert!(
            all.contains("variable `Z` in the template of `countofall` is not bound"),
            "{all}"
        );
    }

    #[test]
    fn operations_bind_the_action_and_check_effects() {
        let (codes, all) = hrf("base(cell(1))\ninit(cell(1))\naction(mark(1))\n\
             mark(X) :: cell(X) & ~seen(X) ==> ~cell(X) & seen(X)\n\
             mark(X) :: cell(Y) & plus(X,Y,Z) ==> cell(Z)\n");
        assert_eq!(codes, [], "{all}");
        let (codes, all) = hrf("base(cell(1))\ninit(cell(1))\naction(mark(1))\n\
             mark(X) :: cell(X) ==> cell(Y)\n\
             mark(X) :: ~cell(Z) ==> cell(X)\n");
        assert_eq!(codes, [Code::Unsafe; 2], "{all}");
        assert!(
            all.contains("t.hrf:8:24: error[E002]: variable `Y` in an effect is not bound"),
            "{all}"
        );
        assert!(
            all.contains("variable `Z` in a negated literal is not bound"),
            "{all}"
        );
    }
}
