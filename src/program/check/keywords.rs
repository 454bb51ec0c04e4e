//! GDL keyword use: keywords with their GDL arity, no rules for `true`/`does`, and the
//! dependency restrictions of the classic model (`init` must not depend on `true`, `legal` must
//! not depend on `does`, ...).

use super::graph::{Edge, Graph};
use super::{path_text, MAX_STEP_NOTES};
use crate::program::{Keyword, Model, Program, RelId};
use crate::syntax::{Code, Diagnostic, Span};
use std::collections::HashSet;

/// Every keyword misuse of `program`.
pub(super) fn check(program: &Program, graph: &Graph) -> Vec<Diagnostic> {
    let keywords: Vec<Option<Keyword>> = (0..program.relations.len())
        .map(|r| program.keyword(r as RelId))
        .collect();
    let mut out = arities(program, &keywords);
    out.extend(legacy(program));
    if program.model == Model::Classic {
        out.extend(state_heads(program, &keywords));
        out.extend(dependencies(program, graph, &keywords));
    }
    out
}

/// A keyword used with another arity than GDL's: once per relation, where it is first used,
/// unless lowering reported it as a clash with an earlier use of the right arity.
fn arities(program: &Program, keywords: &[Option<Keyword>]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (rel, (relation, keyword)) in program.relations.iter().zip(keywords).enumerate() {
        let Some(keyword) = keyword else { continue };
        let want = keyword.arity(program.model);
        if relation.arity == want {
            continue;
        }
        let span = program.relation_spans.get(rel).copied().unwrap_or_default();
        // Lowering reports a use with another arity after the right one as an arity clash.
        let clash_reported = program.relations.iter().enumerate().any(|(other, r)| {
            r.name == relation.name
                && r.arity == want
                && program.relation_spans.get(other).is_some_and(|s| *s < span)
        });
        if clash_reported {
            continue;
        }
        out.push(
            Diagnostic::error(
                Code::Keyword,
                span,
                format!(
                    "`{}` takes {} but is used with {} here",
                    keyword.name(),
                    arguments(want),
                    arguments(relation.arity)
                ),
            )
            .with_hint(format!(
                "GDL gives `{}` a fixed meaning; write it as {}, or rename this relation",
                keyword.name(),
                shape(*keyword, program.model)
            )),
        );
    }
    out
}

/// A warning for each relation that is a legacy form of a keyword (see
/// [`Keyword::is_legacy_at`]), where it is first used.
fn legacy(program: &Program) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (rel, relation) in program.relations.iter().enumerate() {
        let name = program.relation_name(rel as RelId);
        let Some(keyword) = Keyword::of(program.model, name) else {
            continue;
        };
        if !keyword.is_legacy_at(program.model, relation.arity) {
            continue;
        }
        let span = program.relation_spans.get(rel).copied().unwrap_or_default();
        let message = format!(
            "`{name}` with {} is not GDL's `{name}` ({}), read here as an ordinary relation, as \
             in the type declarations of GDL before 2010",
            arguments(relation.arity),
            arguments(keyword.arity(program.model))
        );
        out.push(
            Diagnostic::warning(Code::Legacy, span, message).with_hint(format!(
            "today's GDL declares the possible {} as {}; nothing in the game's semantics reads \
             this one",
            match keyword {
                Keyword::Base => "fluents",
                _ => "moves",
            },
            shape(keyword, program.model)
        )),
        );
    }
    out
}

/// Rules whose head is `true` or `does`: the game's dynamics define those. Once per statement.
fn state_heads(program: &Program, keywords: &[Option<Keyword>]) -> Vec<Diagnostic> {
    let mut seen: HashSet<Span> = HashSet::new();
    let mut out = Vec::new();
    for (rule, origin) in program.rules.iter().zip(&program.rule_origins) {
        let keyword = keywords.get(rule.head.rel as usize).copied().flatten();
        let hint = match keyword {
            Some(Keyword::True) => {
                "`true` holds the current state: define the initial state with `init` and \
                 the following one with `next`"
            }
            Some(Keyword::Does) => {
                "`does` holds the moves the players make: say which moves are allowed with \
                 `legal`"
            }
            _ => continue,
        };
        if !seen.insert(origin.span) {
            continue;
        }
        let name = keyword.map_or("", Keyword::name);
        out.push(
            Diagnostic::error(
                Code::Keyword,
                origin.head_span,
                format!("`{name}` cannot be defined by a rule or fact"),
            )
            .with_hint(hint),
        );
    }
    out
}

/// The keywords each keyword must not depend on (classic model), and why.
fn forbidden(keyword: Keyword) -> (&'static [Keyword], &'static str) {
    match keyword {
        Keyword::Init | Keyword::Base | Keyword::Input | Keyword::Role => (
            &[Keyword::True, Keyword::Does],
            "`role`, `init`, `base` and `input` are fixed before the game starts: define them \
             from facts and static relations only",
        ),
        Keyword::Legal | Keyword::Goal | Keyword::Terminal => (
            &[Keyword::Does],
            "`legal`, `goal` and `terminal` are evaluated in a state, before the moves are \
             known: they may use `true` but not `does`",
        ),
        _ => (&[], ""),
    }
}

/// Keywords that depend on `true` or `does` where GDL forbids it, once per keyword relation and
/// forbidden keyword, with the shortest dependency path.
fn dependencies(program: &Program, graph: &Graph, keywords: &[Option<Keyword>]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (rel, keyword) in keywords.iter().enumerate() {
        let Some(keyword) = *keyword else { continue };
        let (targets, hint) = forbidden(keyword);
        for &target in targets {
            let is_target = |r: RelId| keywords.get(r as usize) == Some(&Some(target));
            if let Some(path) = graph.path(rel as RelId, is_target, |_| true) {
                out.push(dependency(program, keyword, target, &path).with_hint(hint));
            }
        }
    }
    out
}

/// The error for `keyword` depending on `target` through `path`, at the head of the rule that
/// takes the first step.
fn dependency(
    program: &Program,
    keyword: Keyword,
    target: Keyword,
    path: &[(RelId, Edge)],
) -> Diagnostic {
    let name = |r: RelId| program.relation_name(r);
    let head = path
        .first()
        .and_then(|(_, e)| program.rule_origins.get(e.rule))
        .map(|o| o.head_span)
        .unwrap_or_default();
    let mut steps: Vec<String> = path
        .first()
        .map(|(from, _)| name(*from).to_string())
        .into_iter()
        .collect();
    steps.extend(path.iter().map(|(_, e)| name(e.to).to_string()));
    let mut d = Diagnostic::error(
        Code::Keyword,
        head,
        format!("`{}` depends on `{}`", keyword.name(), target.name()),
    )
    .with_note(
        None,
        format!(
            "{} depends on {} through: {}",
            keyword.name(),
            target.name(),
            path_text(&steps)
        ),
    );
    for (from, edge) in path.iter().take(MAX_STEP_NOTES) {
        d = d.with_note(
            Some(edge.span),
            format!("`{}` uses `{}` here", name(*from), name(edge.to)),
        );
    }
    if path.len() > MAX_STEP_NOTES {
        d = d.with_note(
            None,
            format!("and {} more steps", path.len() - MAX_STEP_NOTES),
        );
    }
    d
}

/// How a keyword is written, for hints.
fn shape(keyword: Keyword, model: Model) -> &'static str {
    match (keyword, model) {
        (Keyword::Role, _) => "role(r)",
        (Keyword::Init, _) => "init(f)",
        (Keyword::True, _) => "true(f)",
        (Keyword::Does, _) => "does(r, m)",
        (Keyword::Next, _) => "next(f)",
        (Keyword::Legal, Model::Classic) => "legal(r, m)",
        (Keyword::Legal, Model::Operations) => "legal(a)",
        (Keyword::Goal, _) => "goal(r, v)",
        (Keyword::Terminal, _) => "terminal, without arguments",
        (Keyword::Base, _) => "base(f)",
        (Keyword::Input, _) => "input(r, m)",
        (Keyword::Action, _) => "action(a)",
    }
}

/// "no arguments", "1 argument", "2 arguments".
fn arguments(n: usize) -> String {
    match n {
        0 => "no arguments".into(),
        1 => "1 argument".into(),
        _ => format!("{n} arguments"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check, check_hrf, codes, GAME};
    use crate::syntax::Code;

    #[test]
    fn init_depending_on_true_through_a_helper() {
        let (file, diags) = check(&format!(
            "{GAME}(<= (init ?x) (helper ?x))\n(<= (helper ?x) (true ?x))\n"
        ));
        assert_eq!(codes(&diags), [Code::Keyword]);
        let text = diags[0].render(&file);
        assert!(
            text.starts_with("t.kif:5:5: error[E005]: `init` depends on `true`\n"),
            "{text}"
        );
        assert!(
            text.contains("note: init depends on true through: init → helper → true"),
            "{text}"
        );
        assert!(text.contains("note: t.kif:6:"), "{text}");
        assert!(text.contains("hint: "), "{text}");
    }

    #[test]
    fn legal_may_use_true_but_not_does() {
        let (_, diags) = check(&format!(
            "{GAME}(<= (legal robot y) (true on))\n(<= (goal robot 0) (not (true on)))\n"
        ));
        assert_eq!(codes(&diags), []);
        let (file, diags) = check(&format!(
            "{GAME}(<= (goal robot 50) (not (moved robot)))\n\
             (<= (moved ?r) (does ?r ?m))\n"
        ));
        assert_eq!(codes(&diags), [Code::Keyword]);
        let text = diags[0].render(&file);
        assert!(text.contains("`goal` depends on `does`"), "{text}");
        assert!(text.contains("goal → moved → does"), "{text}");
    }

    #[test]
    fn role_depending_on_both_true_and_does_gets_two_errors() {
        let (_, diags) = check(&format!("{GAME}(<= (role ?x) (true ?x) (does robot ?x))\n"));
        assert_eq!(codes(&diags), [Code::Keyword, Code::Keyword]);
    }

    #[test]
    fn true_and_does_in_heads() {
        let (file, diags) = check(&format!(
            "{GAME}(true (cell 1))\n(<= (does robot ?m) (or (p ?m) (q ?m)))\n(p a) (q b)\n"
        ));
        assert_eq!(codes(&diags), [Code::Keyword, Code::Keyword]);
        let all: String = diags.iter().map(|d| d.render(&file)).collect();
        assert!(
            all.contains("t.kif:5:1: error[E005]: `true` cannot be defined by a rule or fact"),
            "{all}"
        );
        assert!(
            all.contains("t.kif:6:5: error[E005]: `does` cannot be defined"),
            "{all}"
        );
    }

    #[test]
    fn keyword_with_the_wrong_arity() {
        let (file, diags) = check(&format!("{GAME}(<= (next ?x ?y) (true (c ?x ?y)))\n"));
        assert_eq!(codes(&diags), [Code::Keyword]);
        let text = diags[0].render(&file);
        assert!(
            text.contains("error[E005]: `next` takes 1 argument but is used with 2 arguments here"),
            "{text}"
        );
        assert!(text.contains("write it as next(f)"), "{text}");
    }

    #[test]
    fn wrong_arity_after_the_right_one_is_reported_once() {
        let (file, diags) = check(&format!(
            "{GAME}(<= (next (c ?x)) (true (c ?x)))\n(<= (h ?x) (next ?x ?x) (true (c ?x)))\n"
        ));
        assert_eq!(codes(&diags), [Code::Arity]);
        assert!(diags[0].render(&file).contains("t.kif:6:13: error[E004]"));
    }

    #[test]
    fn nullary_terminal_in_both_spellings() {
        let (_, diags) = check("(role r) (legal r x) (goal r 100) (<= (terminal) (true done))\n");
        assert_eq!(codes(&diags), []);
        let (file, diags) = check("(role r) (legal r x) (goal r 100) (terminal now)\n");
        assert_eq!(codes(&diags), [Code::Keyword]);
        assert!(diags
            .iter()
            .any(|d| d.render(&file).contains("`terminal` takes no arguments")));
    }

    #[test]
    fn operations_model_arities_and_no_state_restrictions() {
        let (file, diags) = check_hrf(
            "role(robot)\ngoal(robot,100)\nterminal\n\
             legal(robot,y) :- cell(1)\ninit(cell(1))\ninit(p) :- cell(1)\n",
        );
        assert_eq!(codes(&diags), [Code::Keyword]);
        let text = diags[0].render(&file);
        assert!(
            text.contains("`legal` takes 1 argument but is used with 2 arguments here"),
            "{text}"
        );
        assert!(text.contains("write it as legal(a)"), "{text}");
    }

    #[test]
    fn legacy_type_declarations_are_ordinary_relations_with_a_warning() {
        let (file, diags) = check(&format!(
            "{GAME}(base cell (x 1 2) (y 1 2) (mark x o))\n(base control (role robot))\n\
             (base on)\n(input robot y)\n(input robot y z)\n"
        ));
        assert_eq!(codes(&diags), [Code::Legacy, Code::Legacy, Code::Legacy]);
        let all: String = diags.iter().map(|d| d.render(&file)).collect();
        assert!(
            all.contains(
                "t.kif:5:2: warning[W011]: `base` with 4 arguments is not GDL's `base` (1 \
                 argument), read here as an ordinary relation, as in the type declarations of \
                 GDL before 2010"
            ),
            "{all}"
        );
        assert!(all.contains("`base` with 2 arguments"), "{all}");
        assert!(all.contains("`input` with 3 arguments"), "{all}");
        assert!(
            all.contains("declares the possible moves as input(r, m)"),
            "{all}"
        );
        assert!(!all.contains("error"), "{all}");
    }
}
