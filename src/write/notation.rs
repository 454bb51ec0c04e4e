//! The spelling of names, terms and connectives in each text syntax.

/// How terms, literals and rules are spelled: KIF S-expressions or infix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// `(f a b)`, `?x`, `(not p)`, `(<= head body...)`.
    Kif,
    /// `f(a,b)`, `X`, `~p`, `head :- body & ...`, `action :: cond ==> effects`.
    Infix,
}

impl Notation {
    /// Writes the name of a constant, function or relation, quoted where the syntax needs it.
    pub fn name(self, name: &str, out: &mut String) {
        match self {
            Notation::Kif => out.push_str(name),
            Notation::Infix if is_infix_constant(name) => out.push_str(name),
            Notation::Infix => {
                out.push('"');
                for c in name.chars() {
                    if matches!(c, '"' | '\\') {
                        out.push('\\');
                    }
                    out.push(c);
                }
                out.push('"');
            }
        }
    }

    /// Writes `name(args)` / `(name args)`, with `arg(i, out)` writing argument `i`; a
    /// nullary application is the bare name.
    pub fn apply(
        self,
        name: &str,
        arity: usize,
        out: &mut String,
        mut arg: impl FnMut(usize, &mut String),
    ) {
        if arity == 0 {
            return self.name(name, out);
        }
        match self {
            Notation::Kif => {
                out.push('(');
                self.name(name, out);
                for i in 0..arity {
                    out.push(' ');
                    arg(i, out);
                }
                out.push(')');
            }
            Notation::Infix => {
                self.name(name, out);
                out.push('(');
                for i in 0..arity {
                    if i > 0 {
                        out.push(',');
                    }
                    arg(i, out);
                }
                out.push(')');
            }
        }
    }

    /// Writes variable `name` (already made legal and unique by the printer).
    pub fn variable(self, name: &str, out: &mut String) {
        if self == Notation::Kif {
            out.push('?');
        }
        out.push_str(name);
    }

    /// Opens a negation; [`Notation::close_not`] closes it.
    pub fn open_not(self, out: &mut String) {
        out.push_str(match self {
            Notation::Kif => "(not ",
            Notation::Infix => "~",
        });
    }

    /// Closes a negation.
    pub fn close_not(self, out: &mut String) {
        if self == Notation::Kif {
            out.push(')');
        }
    }
}

/// Whether `name` is a constant the infix lexer reads without quotes.
fn is_infix_constant(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit() => {
            chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        Some('-') => !name[1..].is_empty() && name[1..].bytes().all(|b| b.is_ascii_digit()),
        _ => false,
    }
}
