//! The hand-written lexer of the two infix syntaxes (classic infix GDL and Stanford HRF).
//!
//! Input: the text of one file. Output: tokens with byte offsets, as lalrpop's external-lexer
//! protocol wants them, and located [`LexError`]s. The lexer keeps going after an error, except
//! when parentheses (or `~`s) nest deeper than [`MAX_DEPTH`]: then it reports the error and
//! ends the token stream, so that nothing downstream can recurse that deep.
//!
//! Invariant: a virtual [`Tok::Begin`] precedes every constant that directly follows a token
//! ending a literal (a name, a variable, `)` or `.`) or that opens the file. In a valid file
//! those are exactly the heads of statements, which is what lets statements go without
//! terminators; the parser also resynchronises on `Begin` after a syntax error. The paren
//! count restarts at every `Begin`, so one unclosed `(` does not poison the rest of the file.

use crate::syntax::{Span, MAX_DEPTH};
use std::borrow::Cow;

/// A token of the infix syntaxes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok<'a> {
    /// Virtual: a statement starts at the constant that follows (same span as that constant).
    Begin,
    /// A constant: `[a-z0-9][A-Za-z0-9_]*`, a negative integer, or the text of `"..."`.
    Const(Cow<'a, str>),
    /// A variable, `[A-Z_][A-Za-z0-9_]*` (`_` alone is anonymous).
    Var(&'a str),
    /// `(`.
    LParen,
    /// `)`.
    RParen,
    /// `,`.
    Comma,
    /// `:-`.
    If,
    /// `::`.
    Op,
    /// `==>`.
    Then,
    /// `&`.
    And,
    /// `|`.
    Or,
    /// `~`.
    Not,
    /// `.`.
    Dot,
    /// Stands for text the lexer rejected (already reported); no grammar rule accepts it.
    Invalid,
}

/// A lexical error: where, what, and how to fix it if we can say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct LexError {
    /// The offending text.
    pub(super) span: Span,
    /// What is wrong, lower-case, no final period.
    pub(super) message: String,
    /// How to fix it, if we can say.
    pub(super) hint: Option<&'static str>,
    /// Whether this is the nesting limit (the token stream ends after it).
    pub(super) too_deep: bool,
}

/// A token with its byte offsets, as lalrpop wants it.
pub(super) type Spanned<'a> = (usize, Tok<'a>, usize);

/// The lexer: an iterator of tokens or errors over one file's text.
pub(super) struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    /// The `(` still open in the current statement: where each starts, and how many levels of
    /// nesting it adds (itself and the `~`s directly before it, which apply to the group).
    opens: Vec<(usize, usize)>,
    /// The nesting the open `(` add up to: the sum of their levels.
    nesting: usize,
    /// How many `~` directly precede the current position.
    tildes: usize,
    /// Whether the last token ends a literal (or nothing was read yet): a constant here is a
    /// statement head.
    after_end: bool,
    /// The constant to yield after the `Begin` just yielded.
    pending: Option<Spanned<'a>>,
    /// Set after the nesting limit: no more tokens.
    done: bool,
}

impl<'a> Lexer<'a> {
    /// A lexer over `text`, skipping a leading byte-order mark (offsets stay those of `text`).
    pub(super) fn new(text: &'a str) -> Lexer<'a> {
        Lexer {
            text,
            pos: if text.starts_with('\u{feff}') { 3 } else { 0 },
            opens: Vec::new(),
            nesting: 0,
            tildes: 0,
            after_end: true,
            pending: None,
            done: false,
        }
    }

    /// The start of the innermost `(` of the current statement still open after the tokens
    /// yielded so far.
    pub(super) fn open_paren(&self) -> Option<usize> {
        self.opens.last().map(|&(start, _)| start)
    }

    fn peek(&self) -> Option<char> {
        self.text.get(self.pos..)?.chars().next()
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.text.as_bytes().get(self.pos + ahead).copied()
    }

    /// Advances over ASCII bytes while `keep` holds.
    fn eat_while(&mut self, keep: impl Fn(u8) -> bool) {
        while self.peek_byte(0).is_some_and(&keep) {
            self.pos += 1;
        }
    }

    /// Skips whitespace and `%` comments.
    fn skip_trivia(&mut self) {
        loop {
            match self.peek_byte(0) {
                Some(b) if b.is_ascii_whitespace() => self.pos += 1,
                Some(b'%') => self.eat_while(|b| b != b'\n' && b != b'\r'),
                _ => return,
            }
        }
    }

    fn error(&self, start: usize, message: String, hint: Option<&'static str>) -> LexError {
        LexError {
            span: Span::new(start, self.pos),
            message,
            hint,
            too_deep: false,
        }
    }

    /// Reads one token starting at `start`, where `c` is.
    fn raw(&mut self, start: usize, c: char) -> Result<Tok<'a>, LexError> {
        let single = match c {
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            ',' => Some(Tok::Comma),
            '&' => Some(Tok::And),
            '|' => Some(Tok::Or),
            '~' => Some(Tok::Not),
            '.' => Some(Tok::Dot),
            _ => None,
        };
        if let Some(tok) = single {
            self.pos += 1;
            return Ok(tok);
        }
        match c {
            ':' => {
                self.pos += 1;
                match self.peek_byte(0) {
                    Some(b'-') => {
                        self.pos += 1;
                        Ok(Tok::If)
                    }
                    Some(b':') => {
                        self.pos += 1;
                        Ok(Tok::Op)
                    }
                    _ => Err(self.error(
                        start,
                        "unexpected character `:`".to_string(),
                        Some("did you mean `:-` (rule) or `::` (operation rule)?"),
                    )),
                }
            }
            '=' | '<' | '>' => {
                self.eat_while(|b| matches!(b, b'=' | b'<' | b'>'));
                let found = self.text.get(start..self.pos).unwrap_or_default();
                if found == "==>" {
                    return Ok(Tok::Then);
                }
                let hint = if found.starts_with('<') {
                    "rules are written `head :- body` in infix syntax"
                } else {
                    "did you mean `==>` (between the conditions and the effects)?"
                };
                Err(self.error(start, format!("unexpected `{found}`"), Some(hint)))
            }
            '-' => {
                self.pos += 1;
                if !self.peek_byte(0).is_some_and(|b| b.is_ascii_digit()) {
                    return Err(self.error(
                        start,
                        "unexpected character `-`".to_string(),
                        Some(
                            "a negative number is `-` followed by digits; a rule is `head :- body`",
                        ),
                    ));
                }
                self.eat_while(is_ident_byte);
                let found = self.text.get(start..self.pos).unwrap_or_default();
                if found.bytes().skip(1).all(|b| b.is_ascii_digit()) {
                    Ok(Tok::Const(Cow::Borrowed(found)))
                } else {
                    Err(self.error(
                        start,
                        format!("invalid negative number `{found}`"),
                        Some("a negative number is `-` followed by digits only"),
                    ))
                }
            }
            '"' => self.quoted(start),
            'a'..='z' | '0'..='9' => {
                self.eat_while(is_ident_byte);
                Ok(Tok::Const(Cow::Borrowed(
                    self.text.get(start..self.pos).unwrap_or_default(),
                )))
            }
            'A'..='Z' | '_' => {
                self.eat_while(is_ident_byte);
                Ok(Tok::Var(self.text.get(start..self.pos).unwrap_or_default()))
            }
            _ => {
                // A run of characters that cannot start a token is one error.
                while let Some(c) = self.peek() {
                    if c.is_ascii_whitespace() || starts_token(c) {
                        break;
                    }
                    self.pos += c.len_utf8();
                }
                let found = self.text.get(start..self.pos).unwrap_or_default();
                let what = if found.chars().count() == 1 {
                    "character"
                } else {
                    "characters"
                };
                let hint = match c {
                    '?' => Some("variables start with an uppercase letter or `_` in infix syntax (`?x` is KIF)"),
                    ';' => Some("comments start with `%` in infix syntax"),
                    '\'' => Some("quote constants with double quotes: `\"...\"`"),
                    '!' | '\\' => Some("negation is written `~`"),
                    _ => None,
                };
                Err(self.error(
                    start,
                    format!("unexpected {what} `{}`", found.escape_debug()),
                    hint,
                ))
            }
        }
    }

    /// Reads `"..."` (the opening quote is at `start`) with `\"` and `\\` escapes, on one line.
    fn quoted(&mut self, start: usize) -> Result<Tok<'a>, LexError> {
        self.pos += 1;
        let body_start = self.pos;
        let mut owned: Option<String> = None;
        let mut bad_escape: Option<LexError> = None;
        while let Some(c) = self.peek() {
            match c {
                '"' => {
                    let body = self.text.get(body_start..self.pos).unwrap_or_default();
                    self.pos += 1;
                    if let Some(e) = bad_escape {
                        return Err(e);
                    }
                    if body.is_empty() {
                        return Err(self.error(
                            start,
                            "empty quoted constant".to_string(),
                            Some("a constant needs at least one character"),
                        ));
                    }
                    return Ok(Tok::Const(owned.map_or(Cow::Borrowed(body), Cow::Owned)));
                }
                '\n' | '\r' => break,
                '\\' => {
                    let escape_start = self.pos;
                    let text = self.text.get(body_start..self.pos).unwrap_or_default();
                    let buffer = owned.get_or_insert_with(|| text.to_string());
                    self.pos += 1;
                    match self.peek() {
                        Some(e @ ('"' | '\\')) => {
                            buffer.push(e);
                            self.pos += 1;
                        }
                        Some('\n' | '\r') | None => {}
                        Some(e) => {
                            self.pos += e.len_utf8();
                            if bad_escape.is_none() {
                                bad_escape = Some(self.error(
                                    escape_start,
                                    format!(
                                        "unknown escape `\\{}` in a quoted constant",
                                        e.escape_debug()
                                    ),
                                    Some("only `\\\"` and `\\\\` are escapes"),
                                ));
                            }
                        }
                    }
                }
                _ => {
                    if let Some(buffer) = owned.as_mut() {
                        buffer.push(c);
                    }
                    self.pos += c.len_utf8();
                }
            }
        }
        Err(self.error(
            start,
            "unterminated quoted constant".to_string(),
            Some("a quoted constant ends with `\"` on the same line"),
        ))
    }

    fn too_deep(&mut self, start: usize, what: &str) -> LexError {
        self.done = true;
        LexError {
            span: Span::new(start, start + 1),
            message: format!("{what} nested deeper than {MAX_DEPTH} levels"),
            hint: Some("the rest of the file was not read; no game needs this much nesting"),
            too_deep: true,
        }
    }
}

/// Whether `b` may continue a constant or variable.
fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `c` starts a token (or a comment).
fn starts_token(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_(),&|~.:=<>-\"%".contains(c)
}

impl<'a> Iterator for Lexer<'a> {
    type Item = Result<Spanned<'a>, LexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(token) = self.pending.take() {
            return Some(Ok(token));
        }
        if self.done {
            return None;
        }
        self.skip_trivia();
        let start = self.pos;
        let c = self.peek()?;
        let tok = match self.raw(start, c) {
            Ok(tok) => tok,
            // Rejected text leaves `after_end` alone: it is transparent to statement starts.
            Err(e) => return Some(Err(e)),
        };
        let end = self.pos;
        // The `~`s directly before this token, which apply to it.
        let run = if tok == Tok::Not {
            0
        } else {
            std::mem::take(&mut self.tildes)
        };
        match tok {
            Tok::LParen => {
                let levels = run + 1;
                if self.nesting + levels > MAX_DEPTH {
                    return Some(Err(self.too_deep(start, "parentheses")));
                }
                self.nesting += levels;
                self.opens.push((start, levels));
            }
            Tok::Not => {
                if self.nesting + self.tildes + 1 > MAX_DEPTH {
                    return Some(Err(self.too_deep(start, "`~` and parentheses")));
                }
                self.tildes += 1;
            }
            Tok::RParen => {
                if let Some((_, levels)) = self.opens.pop() {
                    self.nesting = self.nesting.saturating_sub(levels);
                }
            }
            Tok::Const(_) if self.after_end => {
                self.opens.clear();
                self.nesting = 0;
                self.after_end = true;
                self.pending = Some((start, tok, end));
                return Some(Ok((start, Tok::Begin, end)));
            }
            _ => {}
        }
        self.after_end = matches!(tok, Tok::Const(_) | Tok::Var(_) | Tok::RParen | Tok::Dot);
        Some(Ok((start, tok, end)))
    }
}
