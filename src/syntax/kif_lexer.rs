//! The KIF lexer: parentheses, symbols and `?variables`, comments skipped. Variables are
//! case-folded; symbols keep their spelling, which the parser folds (and keeps for output).

use super::MAX_DEPTH;

/// A KIF token. Variables are already folded to lower case; symbols are as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// `(`
    Open,
    /// `)`
    Close,
    /// A symbol or number (`<=`, `cell`, `100`, `+`).
    Sym(String),
    /// A variable's name without its `?`.
    Var(String),
}

/// Why the lexer stopped; the offset is where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LexError {
    /// `?` followed by no name.
    EmptyVariable(usize),
    /// Parentheses nested deeper than [`MAX_DEPTH`]; the offset of the opening one.
    TooDeep(usize),
}

/// Splits KIF text into tokens with byte offsets, for the lalrpop parser.
pub struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
    /// Offsets of the `(` not closed yet, innermost last (for "unclosed" errors).
    pub open: Vec<usize>,
}

impl<'a> Lexer<'a> {
    /// A lexer over `text`, skipping a leading byte-order mark.
    pub fn new(text: &'a str) -> Lexer<'a> {
        let pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Lexer {
            text,
            pos,
            depth: 0,
            open: Vec::new(),
        }
    }
}

/// Whether `c` ends a symbol.
fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | ';')
}

impl Iterator for Lexer<'_> {
    type Item = Result<(usize, Tok, usize), LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.text.as_bytes();
        loop {
            let rest = &self.text[self.pos..];
            let c = rest.chars().next()?;
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else if c == ';' {
                self.pos += rest.find(['\n', '\r']).unwrap_or(rest.len());
            } else {
                break;
            }
        }
        let start = self.pos;
        match bytes[start] {
            b'(' => {
                self.pos += 1;
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Some(Err(LexError::TooDeep(start)));
                }
                if self.open.len() < MAX_DEPTH {
                    self.open.push(start);
                }
                Some(Ok((start, Tok::Open, start + 1)))
            }
            b')' => {
                self.pos += 1;
                self.depth = self.depth.saturating_sub(1);
                self.open.pop();
                Some(Ok((start, Tok::Close, start + 1)))
            }
            _ => {
                let rest = &self.text[start..];
                let len = rest.find(is_delimiter).unwrap_or(rest.len());
                self.pos += len;
                let word = &rest[..len];
                match word.strip_prefix('?') {
                    Some("") => Some(Err(LexError::EmptyVariable(start))),
                    Some(name) => Some(Ok((start, Tok::Var(name.to_lowercase()), self.pos))),
                    None => Some(Ok((start, Tok::Sym(word.to_string()), self.pos))),
                }
            }
        }
    }
}
