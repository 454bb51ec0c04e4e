//! Statement boundaries: where each top-level statement of a file starts and ends, found
//! without parsing it, so that the statements of an edited file can be told apart by their
//! text (see [`crate::load::Reader`]). Each range parses on its own to the statements the
//! whole file's parse gives there, with spans counted from the range's start.

use super::infix_lexer::{Lexer, Tok};
use super::{Syntax, MAX_DEPTH};
use std::ops::Range;

/// The byte range of each top-level statement of `text` in `syntax`, in file order; `None`
/// when the text does not split cleanly (a parenthesis unbalanced, a lexical error): then
/// only a parse of the whole file can say what is wrong.
pub fn statements(text: &str, syntax: Syntax) -> Option<Vec<Range<usize>>> {
    match syntax {
        Syntax::Kif => kif(text),
        Syntax::Infix | Syntax::Hrf => infix(text),
    }
}

/// KIF: each S-expression at depth 0 (a list, or a lone symbol), by the lexer's rules for
/// whitespace, `;` comments and the characters that end a symbol.
fn kif(text: &str) -> Option<Vec<Range<usize>>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut at = if text.starts_with('\u{feff}') { 3 } else { 0 };
    while at < bytes.len() {
        match bytes[at] {
            b';' => {
                let rest = &bytes[at..];
                at += rest
                    .iter()
                    .position(|&b| b == b'\n' || b == b'\r')
                    .unwrap_or(rest.len());
            }
            b'(' => {
                if depth == 0 {
                    start = at;
                }
                depth += 1;
                if depth > MAX_DEPTH {
                    return None;
                }
                at += 1;
            }
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    out.push(start..at + 1);
                }
                at += 1;
            }
            _ => match space(text, at) {
                Some(len) => at += len,
                None => {
                    let word = at;
                    at += 1;
                    while at < bytes.len()
                        && !matches!(bytes[at], b'(' | b')' | b';')
                        && space(text, at).is_none()
                    {
                        at += 1;
                    }
                    if depth == 0 {
                        out.push(word..at);
                    }
                }
            },
        }
    }
    (depth == 0).then_some(out)
}

/// The length of the whitespace character (as `char::is_whitespace` says) that starts at
/// byte `at`, if one does; `None` inside a character too.
#[inline]
fn space(text: &str, at: usize) -> Option<usize> {
    let b = text.as_bytes()[at];
    if b.is_ascii() {
        return char::from(b).is_whitespace().then_some(1);
    }
    let c = text.get(at..)?.chars().next()?;
    c.is_whitespace().then_some(c.len_utf8())
}

/// Infix: a statement starts where the lexer marks a statement head (its virtual `Begin`)
/// and ends with the last token before the next one.
fn infix(text: &str) -> Option<Vec<Range<usize>>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for token in Lexer::new(text) {
        let (start, tok, end) = token.ok()?;
        if tok == Tok::Begin {
            out.push(start..end);
        } else {
            out.last_mut()?.end = end;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str, syntax: Syntax) -> Option<Vec<&str>> {
        let ranges = statements(text, syntax)?;
        Some(ranges.into_iter().map(|r| &text[r]).collect())
    }

    #[test]
    fn kif_statements_are_the_top_level_expressions() {
        let text =
            "\u{feff}; a comment (\n(role x) (<= (p ?x)\n ; ) not closed\n (q ?x))\nterminal ";
        let got = pieces(text, Syntax::Kif).unwrap();
        assert_eq!(
            got,
            [
                "(role x)",
                "(<= (p ?x)\n ; ) not closed\n (q ?x))",
                "terminal"
            ]
        );
        // Unicode whitespace ends a symbol; other non-ASCII characters are part of it.
        let got = pieces("élan\u{2003}(p é)\u{a0}x", Syntax::Kif).unwrap();
        assert_eq!(got, ["élan", "(p é)", "x"]);
    }

    #[test]
    fn unbalanced_kif_does_not_split() {
        assert_eq!(pieces("(role x))", Syntax::Kif), None);
        assert_eq!(pieces("(role x", Syntax::Kif), None);
    }

    #[test]
    fn infix_statements_start_at_their_heads() {
        let text = "role(x)\np(X) :- q(X) & ~r(X). % why\nmark(M) :: cell(M) ==> x(M)\n";
        let got = pieces(text, Syntax::Hrf).unwrap();
        assert_eq!(
            got,
            [
                "role(x)",
                "p(X) :- q(X) & ~r(X).",
                "mark(M) :: cell(M) ==> x(M)"
            ]
        );
        assert_eq!(pieces("p(X) :- q(X) & ?", Syntax::Infix), None);
    }
}
