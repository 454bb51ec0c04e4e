//! KIF: the lalrpop grammar reads S-expressions; this module gives them their logical shape
//! (`<=` rules, `not`/`or`/`and` formulas, atoms, terms) and reports misplaced pieces.

use super::ast::{Atom, Formula, Name, Statement, Term};
use super::kif_lexer::{LexError, Lexer, Tok};
use super::{Code, Diagnostic, Parsed, Span};
use lalrpop_util::{lalrpop_mod, ErrorRecovery, ParseError};

lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_qualifications)]
    grammar,
    "/kif.rs"
);

/// An S-expression, as the grammar reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sexp {
    /// A symbol or number, as written (not yet case-folded).
    Sym(String, Span),
    /// A `?variable` (name without `?`).
    Var(String, Span),
    /// `( ... )`.
    List(Vec<Sexp>, Span),
    /// Where the parser recovered from an error (already reported).
    Error,
}

/// Parses KIF text into statements and syntax diagnostics.
pub(super) fn parse(text: &str) -> Parsed {
    let mut lexer = Lexer::new(text);
    let mut recovered = Vec::new();
    let result = grammar::FileParser::new().parse(&mut recovered, lexer.by_ref());
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut report = |d: Diagnostic| {
        if !diagnostics.iter().any(|e| e.span == d.span) {
            diagnostics.push(d);
        }
    };
    let unclosed = lexer.open.last().copied();
    for ErrorRecovery { error, .. } in recovered {
        report(parse_error(error, unclosed, text.len()));
    }
    let sexps = match result {
        Ok(sexps) => sexps,
        Err(error) => {
            report(parse_error(error, unclosed, text.len()));
            Vec::new()
        }
    };
    let mut converter = Converter {
        statements: Vec::with_capacity(sexps.len()),
        diagnostics,
    };
    for sexp in &sexps {
        converter.statement(sexp);
    }
    converter.diagnostics.sort_by_key(|d| d.span);
    Parsed {
        statements: converter.statements,
        diagnostics: converter.diagnostics,
    }
}

/// Turns a lalrpop error into a located diagnostic with a hint.
fn parse_error(
    error: ParseError<usize, Tok, LexError>,
    unclosed: Option<usize>,
    len: usize,
) -> Diagnostic {
    match error {
        ParseError::UnrecognizedEof { .. } => {
            let at = unclosed.unwrap_or(len.saturating_sub(1));
            Diagnostic::error(Code::Syntax, Span::new(at, at + 1), "unclosed `(`")
                .with_hint("add the missing `)`; the file ends before this list is closed")
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r), ..
        }
        | ParseError::ExtraToken { token: (l, tok, r) } => {
            let found = match tok {
                Tok::Close => "`)`".to_string(),
                Tok::Open => "`(`".to_string(),
                Tok::Sym(s) => format!("`{s}`"),
                Tok::Var(v) => format!("`?{v}`"),
            };
            Diagnostic::error(
                Code::Syntax,
                Span::new(l, r),
                format!("unexpected {found}: it closes no open `(`"),
            )
            .with_hint("remove it, or add the `(` it was meant to close")
        }
        ParseError::InvalidToken { location } => Diagnostic::error(
            Code::Syntax,
            Span::new(location, location + 1),
            "invalid token",
        ),
        ParseError::User {
            error: LexError::EmptyVariable(at),
        } => Diagnostic::error(Code::Syntax, Span::new(at, at + 1), "`?` without a name")
            .with_hint("a variable is `?` followed by a name, as in `?x`"),
        ParseError::User {
            error: LexError::TooDeep(at),
        } => Diagnostic::error(
            Code::Limit,
            Span::new(at, at + 1),
            format!("parentheses nested deeper than {} levels", super::MAX_DEPTH),
        )
        .with_hint("no game needs this; the file is probably corrupt or generated wrongly"),
    }
}

/// Gives S-expressions their logical shape, collecting diagnostics as it goes.
struct Converter {
    statements: Vec<Statement>,
    diagnostics: Vec<Diagnostic>,
}

impl Converter {
    fn error(&mut self, span: Span, message: impl Into<String>, hint: &str) {
        let d = Diagnostic::error(Code::Syntax, span, message);
        self.diagnostics.push(if hint.is_empty() {
            d
        } else {
            d.with_hint(hint)
        });
    }

    /// A top-level sentence: a fact, `(<= head body...)`, or nothing after an error.
    fn statement(&mut self, sexp: &Sexp) {
        if let Sexp::List(items, span) = sexp {
            if let Some(Sexp::Sym(s, s_span)) = items.first() {
                if s == "<=" {
                    let Some(head) = items.get(1) else {
                        self.error(*s_span, "a rule needs a head", "write `(<= head body...)`");
                        return;
                    };
                    let head = self.atom(head);
                    let body: Vec<Formula> =
                        items[2..].iter().filter_map(|f| self.formula(f)).collect();
                    if let Some(head) = head {
                        if body.len() == items.len() - 2 {
                            self.statements.push(Statement::Rule {
                                head,
                                body,
                                span: *span,
                            });
                        }
                    }
                    return;
                }
            }
        }
        if let Some(head) = self.atom(sexp) {
            let span = head.span;
            self.statements.push(Statement::Rule {
                head,
                body: Vec::new(),
                span,
            });
        }
    }

    /// `p` or `(p t...)`.
    fn atom(&mut self, sexp: &Sexp) -> Option<Atom> {
        match sexp {
            Sexp::Sym(s, span) => Some(Atom {
                name: Name::folded(s, *span),
                args: Vec::new(),
                span: *span,
            }),
            Sexp::Var(v, span) => {
                self.error(
                    *span,
                    format!("expected an atom, found the variable `?{v}`"),
                    "an atom is a relation name, or `(relation argument...)`",
                );
                None
            }
            Sexp::List(items, span) => {
                let (name, name_span) = self.head_symbol(items, *span)?;
                if name == "<=" {
                    self.error(
                        name_span,
                        "`<=` can only start a top-level rule",
                        "rules cannot be nested; check the parentheses before this point",
                    );
                    return None;
                }
                let args: Vec<Term> = items[1..].iter().filter_map(|t| self.term(t)).collect();
                (args.len() == items.len() - 1).then(|| Atom {
                    name: Name::folded(name, name_span),
                    args,
                    span: *span,
                })
            }
            Sexp::Error => None,
        }
    }

    /// The symbol that starts a list, or an error saying why there is none.
    fn head_symbol<'s>(&mut self, items: &'s [Sexp], span: Span) -> Option<(&'s str, Span)> {
        match items.first() {
            Some(Sexp::Sym(s, s_span)) => Some((s, *s_span)),
            None => {
                self.error(span, "empty list `()`", "remove it");
                None
            }
            Some(Sexp::Var(v, s)) => {
                self.error(
                    *s,
                    format!("a list must start with a name, found the variable `?{v}`"),
                    "GDL is first-order: relation and function names cannot be variables",
                );
                None
            }
            Some(Sexp::List(_, s)) => {
                self.error(
                    *s,
                    "a list must start with a name, found another list",
                    "check for one `(` too many",
                );
                None
            }
            Some(Sexp::Error) => None,
        }
    }

    /// A body formula: an atom or `(not F)`, `(or F...)`, `(and F...)`.
    fn formula(&mut self, sexp: &Sexp) -> Option<Formula> {
        if let Sexp::List(items, span) = sexp {
            if let Some(Sexp::Sym(op, op_span)) = items.first() {
                let parts = &items[1..];
                let op = op.to_lowercase();
                match op.as_str() {
                    "not" => {
                        if parts.len() != 1 {
                            self.error(
                                *op_span,
                                format!("`not` takes one formula, found {}", parts.len()),
                                "write `(not (p ...))`; for several, `(not (and ...))`",
                            );
                            return None;
                        }
                        let inner = self.formula(&parts[0])?;
                        return Some(Formula::Not(Box::new(inner), *span));
                    }
                    "or" | "and" => {
                        let fs: Vec<Formula> =
                            parts.iter().filter_map(|f| self.formula(f)).collect();
                        if fs.len() != parts.len() {
                            return None;
                        }
                        return Some(if op == "or" {
                            Formula::Or(fs, *span)
                        } else {
                            Formula::And(fs, *span)
                        });
                    }
                    _ => {}
                }
            }
        }
        self.atom(sexp).map(Formula::Atom)
    }

    /// A term: a symbol, a variable, or `(f t...)`; `(f)` is the constant `f`.
    fn term(&mut self, sexp: &Sexp) -> Option<Term> {
        match sexp {
            Sexp::Sym(s, span) => Some(Term::Const(Name::folded(s, *span))),
            Sexp::Var(v, span) => Some(Term::Var(Name::exact(v.clone(), *span))),
            Sexp::List(items, span) => {
                let (name, name_span) = self.head_symbol(items, *span)?;
                let name = Name::folded(name, name_span);
                if items.len() == 1 {
                    return Some(Term::Const(name));
                }
                let args: Vec<Term> = items[1..].iter().filter_map(|t| self.term(t)).collect();
                (args.len() == items.len() - 1).then_some(Term::Func(name, args, *span))
            }
            Sexp::Error => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `text`, returning the statements and the rendered diagnostics.
    fn run(text: &str) -> (Vec<Statement>, Vec<String>) {
        let parsed = parse(text);
        let file = crate::syntax::SourceFile::new("t.kif", text);
        let diags = parsed.diagnostics.iter().map(|d| d.render(&file)).collect();
        (parsed.statements, diags)
    }

    #[test]
    fn reads_rules_facts_and_nullary_atoms() {
        let (st, d) = run("(role X)\n(<= (Legal ?P noop) (Role ?P) (not (true (control ?p))))\nterminal\n(terminal)\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(st.len(), 4);
        let Statement::Rule { head, body, .. } = &st[1] else {
            panic!()
        };
        assert_eq!(head.name.text, "legal");
        assert_eq!(body.len(), 2);
        assert!(matches!(&body[1], Formula::Not(..)));
        let Statement::Rule { head, .. } = &st[3] else {
            panic!()
        };
        assert_eq!((head.name.text.as_str(), head.args.len()), ("terminal", 0));
    }

    #[test]
    fn line_ends_comments_and_bom() {
        let text = "\u{feff}; comment\r(role a) ; more\r\n(role b)\n";
        let (st, d) = run(text);
        assert!(d.is_empty());
        assert_eq!(st.len(), 2);
        let file = crate::syntax::SourceFile::new("t", text);
        assert_eq!(file.line_col(st[1].span().start), (3, 1));
    }

    #[test]
    fn unclosed_and_stray_parentheses_are_located() {
        let (_, d) = run("(role a)\n(<= (p ?x)\n   (q ?x)\n");
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(
            d[0].starts_with("t.kif:2:1: error[E001]: unclosed `(`"),
            "{}",
            d[0]
        );
        let (_, d) = run("(role a))\n(role b)");
        assert!(
            d[0].starts_with("t.kif:1:9: error[E001]: unexpected `)`"),
            "{}",
            d[0]
        );
    }

    #[test]
    fn reports_every_misplaced_piece() {
        let (st, d) = run("(<= ?x (p))\n(role a)\n(<= (p ?x) (not (q ?x) (r ?x)))\n(())\n");
        assert_eq!(st.len(), 1);
        assert_eq!(d.len(), 3, "{d:?}");
        assert!(d[0].contains("found the variable `?x`"));
        assert!(d[1].contains("`not` takes one formula"));
        assert!(d[2].contains("found another list"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "(".repeat(100_000);
        let (_, d) = run(&text);
        assert_eq!(d.len(), 1);
        assert!(d[0].contains("nested deeper"), "{}", d[0]);
    }
}
