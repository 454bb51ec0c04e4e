//! The two infix syntaxes: classic infix GDL (`head :- body`, `&`, `|`, `~`) and Stanford HRF,
//! which adds operation rules (`action :: conditions ==> effects`).
//!
//! Input: one file's text. Output: its statements and located syntax diagnostics. The lexer
//! ([`lexer`]) marks every statement head with a virtual `Begin` token; the lalrpop grammar
//! (`grammar/infix.lalrpop`) skips to the next `Begin` after an error, so one run reports the
//! first error of every broken statement. Errors that merely follow from an earlier one (on
//! the same line, or right where the parser resumed) are not reported.

use super::ast::{Atom, Formula, Term};
use super::infix_lexer::{LexError, Lexer, Spanned, Tok};
use super::{Code, Diagnostic, Parsed, Span};
use lalrpop_util::{lalrpop_mod, ErrorRecovery, ParseError};
use std::convert::Infallible;

lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_qualifications)]
    grammar,
    "/infix.rs"
);

/// At most this many diagnostics are reported per file.
const MAX_DIAGNOSTICS: usize = 100;

/// How much of a token a diagnostic quotes, in characters.
const MAX_QUOTE: usize = 40;

/// Parses infix or HRF text into statements and syntax diagnostics. Never panics.
pub(super) fn parse(text: &str) -> Parsed {
    let mut lexer = Lexer::new(text);
    let mut tokens: Vec<Spanned> = Vec::new();
    let mut open_before: Vec<Option<usize>> = Vec::new();
    let mut lex_errors: Vec<LexError> = Vec::new();
    loop {
        let open = lexer.open_paren();
        let Some(item) = lexer.next() else { break };
        let token = match item {
            Ok(token) => token,
            Err(error) => {
                let token = (
                    error.span.start as usize,
                    Tok::Invalid,
                    error.span.end as usize,
                );
                if lex_errors.len() < MAX_DIAGNOSTICS {
                    lex_errors.push(error);
                }
                token
            }
        };
        tokens.push(token);
        open_before.push(open);
    }
    let context = Context {
        text,
        tokens: &tokens,
        open_before: &open_before,
        open_at_end: lexer.open_paren(),
    };

    let mut recovered: Vec<ErrorRecovery<usize, Tok, Infallible>> = Vec::new();
    let result = grammar::FileParser::new().parse(
        &mut recovered,
        tokens.iter().cloned().map(Ok::<Spanned, Infallible>),
    );
    let statements = match result {
        Ok(statements) => statements,
        Err(error) => {
            recovered.push(ErrorRecovery {
                error,
                dropped_tokens: Vec::new(),
            });
            Vec::new()
        }
    };

    let mut diagnostics: Vec<Diagnostic> = lex_errors.into_iter().map(lex_diagnostic).collect();
    diagnostics.extend(context.parse_diagnostics(recovered));
    diagnostics.sort_by_key(|d| d.span.start);
    let mut seen = std::collections::HashSet::new();
    diagnostics.retain(|d| seen.insert(d.span));
    diagnostics.truncate(MAX_DIAGNOSTICS);
    Parsed {
        statements,
        diagnostics,
    }
}

/// The conjuncts of a rule body: a top-level `&` is flattened, anything else is one conjunct.
fn conjuncts(body: Formula) -> Vec<Formula> {
    match body {
        Formula::And(all, _) => all,
        other => vec![other],
    }
}

/// The action of an operation rule as a term: `a` is a constant, `f(x)` a function term.
fn atom_term(atom: Atom) -> Term {
    if atom.args.is_empty() {
        Term::Const(atom.name)
    } else {
        Term::Func(atom.name, atom.args, atom.span)
    }
}

/// A lexical error as a diagnostic.
fn lex_diagnostic(error: LexError) -> Diagnostic {
    let code = if error.too_deep {
        Code::Limit
    } else {
        Code::Syntax
    };
    let diagnostic = Diagnostic::error(code, error.span, error.message);
    match error.hint {
        Some(hint) => diagnostic.with_hint(hint),
        None => diagnostic,
    }
}

/// The terminals the parser would have accepted where it failed.
#[derive(Default)]
struct Expected {
    begin: bool,
    name: bool,
    var: bool,
    lparen: bool,
    rparen: bool,
    comma: bool,
    rule: bool,
    operation: bool,
    then: bool,
    and: bool,
    or: bool,
    not: bool,
    dot: bool,
}

impl Expected {
    /// Reads lalrpop's list of terminal names (as written in the grammar).
    fn new(list: &[String]) -> Expected {
        let mut e = Expected::default();
        for terminal in list {
            let flag = match terminal.as_str() {
                "BEGIN" => &mut e.begin,
                "NAME" => &mut e.name,
                "VAR" => &mut e.var,
                "\"(\"" => &mut e.lparen,
                "\")\"" => &mut e.rparen,
                "\",\"" => &mut e.comma,
                "\":-\"" => &mut e.rule,
                "\"::\"" => &mut e.operation,
                "\"==>\"" => &mut e.then,
                "\"&\"" => &mut e.and,
                "\"|\"" => &mut e.or,
                "\"~\"" => &mut e.not,
                "\".\"" => &mut e.dot,
                _ => continue,
            };
            *flag = true;
        }
        e
    }

    /// In words: "`&`, `|` or a new statement".
    fn describe(&self) -> String {
        let literal = self.name && self.not;
        let mut words: Vec<&str> = Vec::new();
        if self.name && self.var {
            words.push("a term");
        } else if literal {
            words.push("a literal");
        } else if self.name {
            words.push("a name");
        } else if self.var {
            words.push("a variable");
        }
        let symbols = [
            (self.lparen && !literal, "`(`"),
            (self.rparen, "`)`"),
            (self.comma, "`,`"),
            (self.not && !literal, "`~`"),
            (self.and, "`&`"),
            (self.or, "`|`"),
            (self.rule, "`:-`"),
            (self.operation, "`::`"),
            (self.then, "`==>`"),
            (self.dot, "`.`"),
        ];
        words.extend(symbols.iter().filter(|(on, _)| *on).map(|(_, s)| *s));
        if self.begin {
            words.push(if words.is_empty() {
                "a statement"
            } else {
                "a new statement"
            });
        }
        match words.split_last() {
            None => String::new(),
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        }
    }
}

/// What the diagnostics of parse errors need to know about the file.
struct Context<'t, 'a> {
    text: &'a str,
    tokens: &'t [Spanned<'a>],
    /// For each token, the innermost `(` of its statement open before it.
    open_before: &'t [Option<usize>],
    /// The innermost `(` of the last statement still open at the end of the file.
    open_at_end: Option<usize>,
}

/// Where a parse error happened.
struct Found<'t, 'a> {
    /// The index of the offending token (the number of tokens at the end of the input).
    index: usize,
    /// The offending token, `None` at the end of the input.
    token: Option<&'t Spanned<'a>>,
    /// Where to point.
    span: Span,
}

impl<'t, 'a> Context<'t, 'a> {
    /// The index of the token `(start, tok, _)`.
    fn index_of(&self, start: usize, tok: &Tok) -> usize {
        let first = self.tokens.partition_point(|t| t.0 < start);
        (first..self.tokens.len())
            .take_while(|&i| self.tokens.get(i).is_some_and(|t| t.0 == start))
            .find(|&i| self.tokens.get(i).is_some_and(|t| t.1 == *tok))
            .unwrap_or(first)
    }

    /// The token at `index`, or the end of the input after `last`.
    fn found(&self, index: usize, end_at: usize) -> Found<'t, 'a> {
        let token = self.tokens.get(index);
        let span = token.map_or(Span::new(end_at, end_at), |t| Span::new(t.0, t.2));
        Found { index, token, span }
    }

    /// The source text of `span`, shortened for quoting.
    fn quote(&self, span: Span) -> String {
        let text = self
            .text
            .get(span.start as usize..span.end as usize)
            .unwrap_or_default();
        if text.chars().count() > MAX_QUOTE {
            let short: String = text.chars().take(MAX_QUOTE).collect();
            format!("{short}…")
        } else {
            text.to_string()
        }
    }

    /// Diagnostics for the parser's errors, without those that follow from an earlier one.
    fn parse_diagnostics(
        &self,
        recovered: Vec<ErrorRecovery<usize, Tok<'a>, Infallible>>,
    ) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        // The offset of the previous error, and the token the parser resumed at if it resumed
        // at the offending token itself.
        let mut previous: Option<(usize, Option<usize>)> = None;
        for ErrorRecovery {
            error,
            dropped_tokens,
        } in recovered
        {
            if diagnostics.len() >= MAX_DIAGNOSTICS {
                break;
            }
            let (found, expected) = match error {
                ParseError::UnrecognizedToken { token, expected } => (
                    self.found(self.index_of(token.0, &token.1), token.2),
                    expected,
                ),
                ParseError::ExtraToken { token } => (
                    self.found(self.index_of(token.0, &token.1), token.2),
                    Vec::new(),
                ),
                ParseError::UnrecognizedEof { location, expected } => {
                    (self.found(self.tokens.len(), location), expected)
                }
                ParseError::InvalidToken { location } => (
                    self.found(self.tokens.partition_point(|t| t.0 < location), location),
                    Vec::new(),
                ),
                ParseError::User { error } => match error {},
            };
            let start = found.span.start as usize;
            let consequence = previous.is_some_and(|(offset, resumed)| {
                self.same_line(offset, start) || resumed.is_some_and(|r| found.index < r + 3)
            });
            let rejected_by_lexer = found.token.is_some_and(|t| t.1 == Tok::Invalid);
            if !consequence && !rejected_by_lexer {
                diagnostics.push(self.diagnostic(&found, &Expected::new(&expected)));
            }
            previous = Some((start, dropped_tokens.is_empty().then_some(found.index)));
        }
        diagnostics
    }

    /// Whether no line ends between offsets `from` and `to`.
    fn same_line(&self, from: usize, to: usize) -> bool {
        self.text
            .get(from.min(to)..to.max(from))
            .is_some_and(|between| !between.contains(['\n', '\r']))
    }

    /// The diagnostic of one parse error, with a hint and notes where we can say more.
    fn diagnostic(&self, found: &Found, expected: &Expected) -> Diagnostic {
        let tok = found.token.map(|t| &t.1);
        let what = match tok {
            None => "end of input".to_string(),
            Some(Tok::Var(v)) => format!("variable `{v}`"),
            Some(_) => format!("`{}`", self.quote(found.span)),
        };
        let wanted = expected.describe();
        let message = if wanted.is_empty() {
            format!("unexpected {what}")
        } else {
            format!("expected {wanted}, found {what}")
        };
        let mut diagnostic = Diagnostic::error(Code::Syntax, found.span, message);
        let open = match tok {
            None => self.open_at_end,
            Some(_) => self.open_before.get(found.index).copied().flatten(),
        };
        let hint = match tok {
            None if expected.rparen => {
                if let Some(at) = open {
                    diagnostic = diagnostic.with_note(Some(Span::new(at, at + 1)), "unclosed `(`");
                }
                Some("add the missing `)`".to_string())
            }
            Some(Tok::Begin) if expected.rparen => {
                if let Some(at) = open {
                    diagnostic =
                        diagnostic.with_note(Some(Span::new(at, at + 1)), "this `(` is not closed");
                }
                let separator = if expected.comma {
                    Some("`,`")
                } else if expected.and {
                    Some("`&`")
                } else {
                    None
                };
                Some(match separator {
                    Some(s) => {
                        format!("did you forget {s} before {what}, or `)` to close the `(`?")
                    }
                    None => format!("did you forget `)` before {what}?"),
                })
            }
            Some(Tok::Not) if expected.and => Some("did you forget `&` before `~`?".to_string()),
            Some(Tok::Not) if expected.begin && !expected.name => Some(
                "a statement cannot start with `~`; to delete a fluent, write `~p` among the \
                 effects of an operation rule"
                    .to_string(),
            ),
            Some(Tok::LParen) if expected.begin && !expected.name => {
                Some("a statement starts with a relation or action name, not `(`".to_string())
            }
            Some(Tok::LParen) if expected.name && !expected.lparen => Some(
                "conditions and effects are literals joined by `&`; parentheses around \
                 formulas are allowed only in rule bodies"
                    .to_string(),
            ),
            Some(Tok::Var(v)) if (expected.name || expected.begin) && !expected.var => {
                Some(format!(
                    "`{v}` is a variable (it starts with an uppercase letter or `_`); relation \
                     names start with a lowercase letter or a digit, or are quoted"
                ))
            }
            Some(Tok::RParen) if open.is_none() => Some("this `)` has no matching `(`".to_string()),
            Some(Tok::Comma) if expected.and => {
                Some("conjunctions are written with `&`, not `,`".to_string())
            }
            Some(Tok::If | Tok::Op) if expected.and => match self.stray_operator(found.index) {
                Some((op, head)) => {
                    diagnostic = diagnostic.with_note(
                        Some(op),
                        format!("this `{}` continues the previous statement", self.quote(op)),
                    );
                    Some(format!(
                        "if a new statement starts at `{}`, remove the `{}` before it",
                        self.quote(head),
                        self.quote(op)
                    ))
                }
                None => Some(format!("{what} cannot appear inside a body")),
            },
            Some(Tok::Then) if !expected.then => Some(
                "`==>` only separates the conditions from the effects of an operation rule \
                 (`action :: conditions ==> effects`)"
                    .to_string(),
            ),
            Some(Tok::Or) if expected.and && !expected.or => Some(
                "the conditions and effects of an operation rule are joined by `&` only"
                    .to_string(),
            ),
            _ => None,
        };
        match hint {
            Some(hint) => diagnostic.with_hint(hint),
            None => diagnostic,
        }
    }

    /// For a `:-` or `::` at token `index` inside a body: the operator just before the atom
    /// that precedes it, if there is one (that atom was probably meant to start a statement).
    /// Returns the operator's span and the atom's name's span.
    fn stray_operator(&self, index: usize) -> Option<(Span, Span)> {
        let span = |i: usize| self.tokens.get(i).map(|t| Span::new(t.0, t.2));
        let mut i = index.checked_sub(1)?;
        if self.tokens.get(i)?.1 == Tok::RParen {
            let mut depth = 0usize;
            loop {
                match self.tokens.get(i)?.1 {
                    Tok::RParen => depth += 1,
                    Tok::LParen => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    Tok::Begin | Tok::If | Tok::Op | Tok::Then => return None,
                    _ => {}
                }
                i = i.checked_sub(1)?;
            }
            i = i.checked_sub(1)?;
        }
        if !matches!(self.tokens.get(i)?.1, Tok::Const(_)) {
            return None;
        }
        let op = i.checked_sub(1)?;
        matches!(
            self.tokens.get(op)?.1,
            Tok::And | Tok::Or | Tok::Not | Tok::Then
        )
        .then_some((span(op)?, span(i)?))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{SourceFile, Statement};
    use super::*;

    /// Parses `text`; returns the statements and the diagnostics rendered as
    /// `line:col: message [hint]`.
    fn run(text: &str) -> (Vec<Statement>, Vec<String>) {
        let parsed = parse(text);
        let file = SourceFile::new("t", text);
        let errors = parsed
            .diagnostics
            .iter()
            .map(|d| {
                let (line, col) = file.line_col(d.span.start);
                let hint = d
                    .hint
                    .as_deref()
                    .map_or(String::new(), |h| format!(" [{h}]"));
                format!("{line}:{col}: {}{hint}", d.message)
            })
            .collect();
        (parsed.statements, errors)
    }

    #[test]
    fn tictactoe_rules() {
        let text = "% tictactoe\nrole(x)\nrole(o)\n\
                    base(cell(M,N,x)) :- index(M) & index(N)\n\
                    legal(mark(M,N)) :- cell(M,N,b)\n\
                    terminal :- ~open\n\
                    open :- cell(M,N,b)\n";
        let (statements, errors) = run(text);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(statements.len(), 6);
        let Statement::Rule { head, body, span } = &statements[2] else {
            panic!("not a rule: {:?}", statements[2]);
        };
        assert_eq!(head.name.text, "base");
        assert_eq!(
            text.get(span.start as usize..span.end as usize),
            Some("base(cell(M,N,x)) :- index(M) & index(N)")
        );
        let [Term::Func(cell, args, _)] = head.args.as_slice() else {
            panic!("{head:?}");
        };
        assert_eq!(cell.text, "cell");
        assert!(matches!(&args[0], Term::Var(v) if v.text == "M"));
        assert!(matches!(&args[2], Term::Const(c) if c.text == "x"));
        assert_eq!(body.len(), 2);
        assert!(matches!(&body[1], Formula::Atom(a) if a.name.text == "index"));
        let Statement::Rule { head, body, .. } = &statements[4] else {
            panic!("{:?}", statements[4]);
        };
        assert_eq!((head.name.text.as_str(), head.args.len()), ("terminal", 0));
        assert!(matches!(body.as_slice(),
            [Formula::Not(f, _)] if matches!(&**f, Formula::Atom(a) if a.name.text == "open")));
        assert!(matches!(&statements[0], Statement::Rule { body, .. } if body.is_empty()));
    }

    #[test]
    fn operation_rules() {
        let text = "c(R) :: played(R)\n\
                    tick :: ~played(left) & ~played(right)\n\
                    mark(M,N) :: control(R)  ==> cell(M,N,R) & ~cell(M,N,b)\n\
                    capture(piece(white,Q,N)) ::\n  white(OW) & worth(Q,W) ==> ~white(OW) & white(NW)\n\
                    move(P,Y) :: location(Y,P) & leave(P) & clean(Y) & kerchunk\n";
        let (statements, errors) = run(text);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(statements.len(), 5);
        let shape: Vec<(usize, usize)> = statements
            .iter()
            .map(|s| match s {
                Statement::Operation {
                    conditions,
                    effects,
                    ..
                } => (conditions.len(), effects.len()),
                Statement::Rule { .. } => panic!("not an operation: {s:?}"),
            })
            .collect();
        assert_eq!(shape, [(0, 1), (0, 2), (1, 2), (2, 2), (0, 4)]);
        let Statement::Operation {
            action, effects, ..
        } = &statements[1]
        else {
            unreachable!()
        };
        assert!(matches!(action, Term::Const(n) if n.text == "tick"));
        assert!(matches!(&effects[0], Formula::Not(f, _)
            if matches!(&**f, Formula::Atom(a) if a.name.text == "played")));
        let Statement::Operation {
            action,
            conditions,
            effects,
            ..
        } = &statements[2]
        else {
            unreachable!()
        };
        assert!(matches!(action, Term::Func(n, args, _) if n.text == "mark" && args.len() == 2));
        assert!(matches!(&conditions[0], Formula::Atom(a) if a.name.text == "control"));
        assert!(matches!(&effects[1], Formula::Not(..)));
        // Effects may perform other actions (chained actions): they are plain atoms here.
        let Statement::Operation { effects, .. } = &statements[4] else {
            unreachable!()
        };
        assert!(matches!(&effects[3], Formula::Atom(a) if a.name.text == "kerchunk"));
    }

    #[test]
    fn disjunction_parentheses_and_precedence() {
        let (statements, errors) =
            run("p :- a | b & ~c\nq :- (a | b) & ~(c & d)\nr :- ~~a & (b)\n");
        assert!(errors.is_empty(), "{errors:?}");
        let bodies: Vec<&Vec<Formula>> = statements
            .iter()
            .map(|s| match s {
                Statement::Rule { body, .. } => body,
                Statement::Operation { .. } => panic!("{s:?}"),
            })
            .collect();
        // `|` is loosest: a | (b & ~c), one conjunct.
        let [Formula::Or(disjuncts, _)] = bodies[0].as_slice() else {
            panic!("{:?}", bodies[0]);
        };
        assert!(matches!(&disjuncts[0], Formula::Atom(a) if a.name.text == "a"));
        assert!(matches!(&disjuncts[1], Formula::And(c, _)
            if c.len() == 2 && matches!(&c[1], Formula::Not(..))));
        // The top-level `&` is flattened into the body; the nested ones are kept.
        assert!(
            matches!(bodies[1].as_slice(), [Formula::Or(o, _), Formula::Not(n, _)]
            if o.len() == 2 && matches!(&**n, Formula::And(a, _) if a.len() == 2))
        );
        assert!(
            matches!(bodies[2].as_slice(), [Formula::Not(n, _), Formula::Atom(b)]
            if matches!(&**n, Formula::Not(..)) && b.name.text == "b")
        );
    }

    #[test]
    fn names_variables_and_numbers() {
        let text = "p(_, _X, Y, \"+\", \"1+\"(a), \"abc\", \"a\\\"b\\\\c\", -12, 007)";
        let (statements, errors) = run(text);
        assert!(errors.is_empty(), "{errors:?}");
        let Statement::Rule { head, .. } = &statements[0] else {
            panic!("{statements:?}")
        };
        let texts: Vec<(&str, bool)> = head
            .args
            .iter()
            .map(|t| match t {
                Term::Const(n) | Term::Func(n, _, _) => (n.text.as_str(), false),
                Term::Var(n) => (n.text.as_str(), true),
            })
            .collect();
        assert_eq!(
            texts,
            [
                ("_", true),
                ("_X", true),
                ("Y", true),
                ("+", false),
                ("1+", false),
                ("abc", false),
                ("a\"b\\c", false),
                ("-12", false),
                ("007", false),
            ]
        );
        // The span of a quoted constant includes its quotes.
        let span = head.args[5].span();
        assert_eq!(
            text.get(span.start as usize..span.end as usize),
            Some("\"abc\"")
        );
        // A quoted name may name a relation; it is the same constant as the bare one.
        let (statements, errors) = run("\"p\"(a) :- p(\"a\")");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(matches!(&statements[0], Statement::Rule { head, .. } if head.name.text == "p"));
        // Case is significant.
        let (statements, _) = run("abc(aBc)");
        assert!(matches!(&statements[0], Statement::Rule { head, .. }
            if matches!(&head.args[0], Term::Const(n) if n.text == "aBc")));
    }

    #[test]
    fn terminators_line_ends_and_bom() {
        let text = "\u{feff}p(a). q :- p(a)\r\n  & r.\r% comment\rs\n\nt(b) :-\n p(b)";
        let (statements, errors) = run(text);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(statements.len(), 4);
        assert!(matches!(&statements[1], Statement::Rule { body, .. } if body.len() == 2));
        // Locations count CR, CRLF and LF as line ends, and the BOM is not a token.
        let (_, errors) = run("\u{feff}p\r\nq\rr\n$");
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].starts_with("4:1: unexpected character `$`"),
            "{errors:?}"
        );
        let (statements, errors) = run("\u{feff}");
        assert!(statements.is_empty() && errors.is_empty());
    }

    #[test]
    fn deep_nesting_is_an_error() {
        let start = std::time::Instant::now();
        for text in [
            "(".repeat(100_000),
            format!("p :- {}", "~".repeat(100_000)),
            format!("p({}a{}", "f(".repeat(100_000), ")".repeat(100_000)),
            format!("p :- {}", "(".repeat(100_000)),
            format!("p :- {}", "~~~~~~~~~~(".repeat(1000)),
        ] {
            let parsed = parse(&text);
            let deep: Vec<&Diagnostic> = parsed
                .diagnostics
                .iter()
                .filter(|d| d.code == Code::Limit)
                .collect();
            assert_eq!(deep.len(), 1, "{:?}", parsed.diagnostics);
            assert!(deep[0].message.contains("nested deeper than 256"));
            assert!(deep[0].span.start as usize >= super::super::MAX_DEPTH);
        }
        // Nesting as deep as allowed is fine, and depth restarts with every statement.
        let ok = format!("p({}a{})", "f(".repeat(255), ")".repeat(255));
        let negated = format!("p :- {}a{}", "~(".repeat(128), ")".repeat(128));
        let (statements, errors) = run(&format!("{ok} {negated}\n{}", "q(a ".repeat(1000)));
        assert_eq!(statements.len(), 2);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(start.elapsed().as_secs() < 5);
    }

    #[test]
    fn reports_every_broken_statement() {
        let text = "p(a) :- q(a) ~r(a)\n\
                    ok(1)\n\
                    p(b :- q(b)\n\
                    ok(2)\n\
                    p(c) :- q(c) &\n\
                    ok(3) :- q(c)\n\
                    p(d) :- q(d) | & r(d)\n\
                    ok(4)\n\
                    p(e :- f\n";
        let (statements, errors) = run(text);
        assert_eq!(
            errors,
            [
                "1:14: expected `&`, `|`, `.` or a new statement, found `~` \
                 [did you forget `&` before `~`?]",
                "3:5: expected `(`, `)` or `,`, found `:-`",
                "6:7: expected `&`, `|`, `.` or a new statement, found `:-` \
                 [if a new statement starts at `ok`, remove the `&` before it]",
                "7:16: expected a literal, found `&`",
                "9:5: expected `(`, `)` or `,`, found `:-`",
            ]
        );
        // `ok(3)` was swallowed by the statement the stray `&` continued.
        let oks = statements
            .iter()
            .filter(|s| matches!(s, Statement::Rule { head, .. } if head.name.text == "ok"))
            .count();
        assert_eq!(oks, 3, "{statements:?}");
    }

    #[test]
    fn unclosed_parenthesis_points_at_it() {
        let parsed = parse("p(a).\nq(f(b) :- r");
        assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
        let parsed = parse("p(a).\nq(f(b)");
        let [d] = parsed.diagnostics.as_slice() else {
            panic!("{:?}", parsed.diagnostics)
        };
        assert!(d.message.ends_with("found end of input"), "{d:?}");
        assert_eq!(d.span, Span::new(12, 12));
        assert_eq!(d.notes.first().and_then(|n| n.span), Some(Span::new(7, 8)));
        let parsed = parse("p(a\nq(b)");
        let [d] = parsed.diagnostics.as_slice() else {
            panic!("{:?}", parsed.diagnostics)
        };
        assert_eq!(d.notes.first().and_then(|n| n.span), Some(Span::new(1, 2)));
        assert_eq!(parsed.statements.len(), 1);
    }

    #[test]
    fn lexical_errors_are_located() {
        let (statements, errors) =
            run("p :- q & $$ & r\nz(\"ab\nk(-3a, \"\", \"a\\qb\") :- ?x\nok");
        assert_eq!(
            errors,
            [
                "1:10: unexpected characters `$$`",
                "2:3: unterminated quoted constant [a quoted constant ends with `\"` on the same line]",
                "3:3: invalid negative number `-3a` [a negative number is `-` followed by digits only]",
                "3:8: empty quoted constant [a constant needs at least one character]",
                "3:14: unknown escape `\\q` in a quoted constant [only `\\\"` and `\\\\` are escapes]",
                "3:23: unexpected character `?` \
                 [variables start with an uppercase letter or `_` in infix syntax (`?x` is KIF)]",
            ]
        );
        assert!(
            matches!(statements.last(), Some(Statement::Rule { head, .. }) if head.name.text == "ok")
        );
    }

    #[test]
    fn parallelbuttonsandlights_error() {
        let line = "goal(R,25) :- p &(R) ~q(R) & ~r(R)\ngoal(R,25) :- ~p(R) & q(R) & ~r(R)\n";
        let (statements, errors) = run(line);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("1:19: expected a literal, found variable `R`"),
            "{errors:?}"
        );
        assert_eq!(statements.len(), 1);
    }

    #[test]
    fn garbage_gives_diagnostics_not_panics() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for round in 0..50 {
            let bytes: Vec<u8> = (0..2000)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    let byte = (seed >> 33) as u8;
                    // Half the rounds stay within the syntax's own characters.
                    let alphabet = b"pqX_(),&|~.:-=>\"%\\ \n\r19";
                    if round % 2 == 0 {
                        alphabet[usize::from(byte) % alphabet.len()]
                    } else {
                        byte
                    }
                })
                .collect();
            let text = String::from_utf8_lossy(&bytes);
            let parsed = parse(&text);
            assert!(!parsed.diagnostics.is_empty());
            assert!(parsed.diagnostics.len() <= MAX_DIAGNOSTICS);
            let mut spans: Vec<Span> = parsed.diagnostics.iter().map(|d| d.span).collect();
            spans.dedup();
            assert_eq!(spans.len(), parsed.diagnostics.len());
        }
        let many = "p(a) $\n".repeat(500);
        assert_eq!(parse(&many).diagnostics.len(), MAX_DIAGNOSTICS);
    }

    #[test]
    fn stanford_gamemaster_games() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/games/stanford_gamemaster"
        );
        let Ok(entries) = std::fs::read_dir(dir) else {
            eprintln!("skipping: {dir} is absent");
            return;
        };
        let mut files = 0;
        let mut broken = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "hrf") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("readable game");
            files += 1;
            let (statements, errors) = run(&text);
            assert!(!statements.is_empty(), "{}", path.display());
            if !errors.is_empty() {
                broken.push((
                    path.file_name().map(|n| n.to_string_lossy().into_owned()),
                    errors,
                ));
            }
        }
        assert_eq!(files, 67);
        assert_eq!(broken.len(), 1, "{broken:?}");
        assert_eq!(broken[0].0.as_deref(), Some("parallelbuttonsandlights.hrf"));
        assert_eq!(broken[0].1.len(), 1);
        assert!(broken[0].1[0].starts_with("75:"), "{:?}", broken[0].1);
    }
}
