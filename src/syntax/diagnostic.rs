//! User-facing diagnostics: located errors and warnings, rendered like rustc's.
//!
//! Every stage returns its diagnostics instead of printing them; the pipeline stops between
//! stages when one of them is an error. Rendering computes line and column from the span.

use super::{SourceFile, Span};
use std::fmt::Write as _;

/// How serious a diagnostic is: errors reject the input (exit 1), warnings do not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Something worth knowing that does not stop grounding.
    Warning,
    /// The input is not a valid game.
    Error,
}

/// The kind of problem, as a stable code users can search for (`error[E003]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    /// The text does not follow the grammar.
    Syntax,
    /// A variable that no positive body literal binds.
    Unsafe,
    /// Recursion through negation.
    Unstratified,
    /// One relation used with two different arities.
    Arity,
    /// A GDL keyword used where GDL forbids it, or with the wrong arity.
    Keyword,
    /// A relation used in a body but defined nowhere (a warning).
    Undefined,
    /// The game lacks something every game must define (roles, legal, goal, terminal).
    Missing,
    /// Something the normaliser cannot represent (too many disjuncts, too deep).
    Limit,
    /// Valid GDL that grounding does not handle yet (`countofall`).
    Unsupported,
    /// A rule expected to have far more instances than the memory can hold.
    TooLarge,
    /// A form of older GDL read in today's terms (a warning).
    Legacy,
    /// A rule unsafe bottom-up, ground over its calls, which bind it (a warning).
    CallBound,
}

impl Code {
    /// The short code printed in brackets.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Syntax => "E001",
            Code::Unsafe => "E002",
            Code::Unstratified => "E003",
            Code::Arity => "E004",
            Code::Keyword => "E005",
            Code::Undefined => "W006",
            Code::Missing => "E007",
            Code::Limit => "E008",
            Code::Unsupported => "E009",
            Code::TooLarge => "E010",
            Code::Legacy => "W011",
            Code::CallBound => "W012",
        }
    }

    /// A one-word name of the kind of problem, used in summaries and tests.
    pub fn name(self) -> &'static str {
        match self {
            Code::Syntax => "syntax",
            Code::Unsafe => "unsafe",
            Code::Unstratified => "unstratified",
            Code::Arity => "arity",
            Code::Keyword => "keyword",
            Code::Undefined => "undefined",
            Code::Missing => "missing",
            Code::Limit => "limit",
            Code::Unsupported => "unsupported",
            Code::TooLarge => "too-large",
            Code::Legacy => "legacy",
            Code::CallBound => "call-bound",
        }
    }
}

/// A secondary location or remark attached to a diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Where the note points, if anywhere.
    pub span: Option<Span>,
    /// What it says.
    pub message: String,
}

/// One problem found in one source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The kind of problem.
    pub code: Code,
    /// The main location.
    pub span: Span,
    /// What is wrong, lower-case, no final period.
    pub message: String,
    /// Other places involved (the first use of a clashing arity, a step of a cycle).
    pub notes: Vec<Note>,
    /// How to fix it, if we can say.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error of kind `code` at `span`.
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            span,
            message: message.into(),
            notes: Vec::new(),
            hint: None,
        }
    }

    /// A warning of kind `code` at `span`.
    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    /// Adds a note pointing at `span`.
    pub fn with_note(mut self, span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        self.notes.push(Note {
            span,
            message: message.into(),
        });
        self
    }

    /// Sets the hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// The diagnostic with its span and its notes' moved `offset` bytes on (see
    /// [`Span::shifted`]).
    pub fn shifted(&self, offset: u32) -> Diagnostic {
        let notes = self.notes.iter().map(|n| Note {
            span: n.span.map(|s| s.shifted(offset)),
            message: n.message.clone(),
        });
        Diagnostic {
            span: self.span.shifted(offset),
            notes: notes.collect(),
            ..self.clone()
        }
    }

    /// Whether this diagnostic rejects the input.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders as `file:line:col: error[E001]: message`, the source line with a caret under the
    /// span, then notes and the hint.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut out = String::new();
        let (line, col) = file.line_col(self.span.start);
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(
            out,
            "{}:{}:{}: {}[{}]: {}",
            file.name,
            line,
            col,
            level,
            self.code.as_str(),
            self.message
        );
        excerpt(&mut out, file, self.span);
        for note in &self.notes {
            match note.span {
                Some(span) => {
                    let (l, c) = file.line_col(span.start);
                    let _ = writeln!(out, "  note: {}:{}:{}: {}", file.name, l, c, note.message);
                    excerpt(&mut out, file, span);
                }
                None => {
                    let _ = writeln!(out, "  note: {}", note.message);
                }
            }
        }
        if let Some(hint) = &self.hint {
            let _ = writeln!(out, "  hint: {hint}");
        }
        out
    }
}

/// Writes the line holding `span` with carets under it (only the first line of a long span).
fn excerpt(out: &mut String, file: &SourceFile, span: Span) {
    let (line, col) = file.line_col(span.start);
    let text = file.line_text(line);
    let width = line.to_string().len();
    let shown: String = text
        .chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect();
    let (end_line, end_col) = file.line_col(span.end.max(span.start + 1) - 1);
    let carets = if end_line == line {
        (end_col + 1).saturating_sub(col).max(1)
    } else {
        shown.chars().count().saturating_sub(col - 1).max(1)
    };
    let _ = writeln!(out, "{:width$} |", "");
    let _ = writeln!(out, "{line} | {shown}");
    let _ = writeln!(
        out,
        "{:width$} | {}{}",
        "",
        " ".repeat(col - 1),
        "^".repeat(carets)
    );
}
