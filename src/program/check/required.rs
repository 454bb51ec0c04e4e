//! Required relations: every game defines its roles, legal moves, goals and end (GDL.md §1).

use crate::program::{Keyword, Program};
use crate::syntax::{Code, Diagnostic, Span};

/// The keywords every game must define, each with a hint on how.
const REQUIRED: [(Keyword, &str); 4] = [
    (
        Keyword::Role,
        "declare each player with a `role` fact, like role(white)",
    ),
    (
        Keyword::Legal,
        "say which moves are allowed with `legal` rules or facts",
    ),
    (
        Keyword::Goal,
        "give each role its score with `goal` rules, like goal(white, 100)",
    ),
    (
        Keyword::Terminal,
        "say when the game ends with `terminal` rules",
    ),
];

/// An error at the start of the file for each required keyword no rule or fact defines, with
/// any arity (a wrong arity is reported by the keyword check).
pub(super) fn check(program: &Program) -> Vec<Diagnostic> {
    let defined: Vec<Keyword> = program
        .rules
        .iter()
        .filter_map(|rule| program.keyword(rule.head.rel))
        .collect();
    REQUIRED
        .iter()
        .filter(|(keyword, _)| !defined.contains(keyword))
        .map(|(keyword, hint)| {
            Diagnostic::error(
                Code::Missing,
                Span::default(),
                format!("the game does not define `{}`", keyword.name()),
            )
            .with_hint(*hint)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check, codes};
    use crate::syntax::Code;

    #[test]
    fn each_missing_keyword_is_an_error_at_the_start() {
        let (file, diags) = check("(role robot)\n(legal robot x)\nterminal\n");
        assert_eq!(codes(&diags), [Code::Missing]);
        let text = diags[0].render(&file);
        assert!(
            text.starts_with("t.kif:1:1: error[E007]: the game does not define `goal`\n"),
            "{text}"
        );
        assert!(text.contains("hint: give each role its score"), "{text}");
        let (_, diags) = check("; nothing\n");
        assert_eq!(codes(&diags), [Code::Missing; 4]);
    }

    #[test]
    fn rules_define_as_well_as_facts() {
        let (_, diags) = check(
            "(<= (role ?r) (player ?r)) (player a) (<= (legal ?r x) (role ?r))\n\
             (<= (goal ?r 0) (role ?r)) (<= terminal (true over))\n",
        );
        assert_eq!(codes(&diags), []);
    }
}
