//! The syntax tree shared by all three input syntaxes.
//!
//! Invariant: this stage knows the logical connectives of each syntax (`<=`, `not`, `or`, `and`,
//! `:-`, `&`, `|`, `~`, `::`, `==>`) but nothing of GDL keywords' meaning: `true`, `distinct` or
//! `plus` are ordinary names here. Names are already case-folded where the syntax says so, and keep their spelling beside.

use super::Span;

/// A name (after case folding), with its spelling and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// The text that identifies the name: a symbol, a number, or a variable's name without
    /// its `?`, folded to lower case where the syntax is case-insensitive.
    pub text: String,
    /// Where it was written.
    pub span: Span,
    /// The spelling in the file where folding changed it: outputs keep the game's own names
    /// (GDL.md §3), since players such as ggp-base are case-sensitive.
    pub written: Option<Box<str>>,
}

impl Name {
    /// A name of a case-sensitive syntax: identified by its spelling.
    pub fn exact(text: String, span: Span) -> Name {
        Name {
            text,
            span,
            written: None,
        }
    }

    /// A name of a case-insensitive syntax (KIF): identified by `written` folded to lower
    /// case, spelled as written.
    pub fn folded(written: &str, span: Span) -> Name {
        let text = written.to_lowercase();
        let written = (text != written).then(|| written.into());
        Name {
            text,
            span,
            written,
        }
    }

    /// How the name was written.
    pub fn spelling(&self) -> &str {
        self.written.as_deref().unwrap_or(&self.text)
    }
}

/// A term: a constant, a variable, or a function applied to terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// A constant symbol or number.
    Const(Name),
    /// A variable; the name `_` is anonymous (each occurrence distinct).
    Var(Name),
    /// `f(t1, ..., tn)` with n ≥ 1, spanning the whole application.
    Func(Name, Vec<Term>, Span),
}

impl Term {
    /// The span of the whole term.
    pub fn span(&self) -> Span {
        match self {
            Term::Const(n) | Term::Var(n) => n.span,
            Term::Func(_, _, s) => *s,
        }
    }
}

/// A relation applied to terms: `p`, `(p a b)`, `p(a,b)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Atom {
    /// The relation's name.
    pub name: Name,
    /// Its arguments (empty for a nullary atom).
    pub args: Vec<Term>,
    /// The whole atom.
    pub span: Span,
}

/// A body formula before normalisation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Formula {
    /// An atom.
    Atom(Atom),
    /// `(not F)`, `~F`.
    Not(Box<Formula>, Span),
    /// `(and F...)`, `F & G`.
    And(Vec<Formula>, Span),
    /// `(or F...)`, `F | G`.
    Or(Vec<Formula>, Span),
}

impl Formula {
    /// The span of the whole formula.
    pub fn span(&self) -> Span {
        match self {
            Formula::Atom(a) => a.span,
            Formula::Not(_, s) | Formula::And(_, s) | Formula::Or(_, s) => *s,
        }
    }
}

/// One top-level statement of a game description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Statement {
    /// `head :- body` (a fact when the body is empty); the body is a conjunction.
    Rule {
        /// The head atom.
        head: Atom,
        /// The conjuncts of the body.
        body: Vec<Formula>,
        /// The whole statement.
        span: Span,
    },
    /// `action :: conditions ==> effects` (Stanford infix); `action :: effects` has no
    /// conditions. Conditions and effects are conjunctions.
    Operation {
        /// The action performed.
        action: Term,
        /// Conditions, evaluated in the state before the move.
        conditions: Vec<Formula>,
        /// Effects: fluents added, `~fluent` deleted, or actions performed too.
        effects: Vec<Formula>,
        /// The whole statement.
        span: Span,
    },
}

impl Statement {
    /// The span of the whole statement.
    pub fn span(&self) -> Span {
        match self {
            Statement::Rule { span, .. } | Statement::Operation { span, .. } => *span,
        }
    }
}
