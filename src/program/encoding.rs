//! Ground terms as flat token sequences: the representation the engine computes with.
//!
//! A ground term is written in prefix order, one `u32` token per symbol occurrence: a token is
//! either a *functor* (a symbol with an arity, from the program's finite table) or an integer.
//! Since every functor's arity is known, the sequence parses back unambiguously, and two
//! terms are equal exactly when their token sequences are: no interner is needed at run time,
//! so any number of workers build and compare terms without coordination. Integers have
//! tokens of their own so that arithmetic built-ins can create numbers the program never
//! mentions.

use super::{GroundTerm, Program, Sym, Term, TermId};
use crate::hash::FastMap;

/// One token of a ground term.
pub type Token = u32;

/// Tokens at or above this value are integers.
const INT_BASE: Token = 0x8000_0000;
/// The integer encoded by `INT_BASE`.
const INT_MIN: i64 = -(1 << 30);
/// One past the largest encodable integer.
const INT_END: i64 = (1 << 31) - (1 << 30);

/// The functor table of one program and the encoding of its ground terms.
#[derive(Clone, Debug, Default)]
pub struct Encoding {
    /// (symbol, arity) of each functor token.
    functors: Vec<(Sym, u32)>,
    /// The token of each symbol as a constant (its integer's, its functor's, or none), by
    /// symbol: a live session looks up every constant of every rule each edit, and parsing
    /// the name and hashing for each was a twentieth of a connect four goal edit.
    constants: Vec<Option<Token>>,
    /// The tokens of the functors of positive arity.
    ids: FastMap<(Sym, u32), Token>,
    /// Each symbol's spelling, copied from the program so the encoding is self-contained.
    names: Vec<Box<str>>,
}

impl Encoding {
    /// The encoding of `program`'s symbols: every symbol may appear with any arity it is
    /// used with as a function or constant in the rules.
    pub fn new(program: &Program) -> Encoding {
        let names: Vec<Box<str>> = (0..program.symbols.len() as Sym)
            .map(|s| program.symbols.spelling(s).into())
            .collect();
        let constants = (names.iter())
            .map(|name| parse_int(name).and_then(int_token))
            .collect();
        let mut encoding = Encoding {
            names,
            constants,
            ..Encoding::default()
        };
        for id in 0..program.terms.len() as TermId {
            match program.terms.term(id) {
                GroundTerm::Const(s) => encoding.functor(*s, 0),
                GroundTerm::Func(s, args) => encoding.functor(*s, args.len() as u32),
            };
        }
        let mut functions = Vec::new();
        program.for_each_term(&mut |t| collect_functions(t, &mut functions));
        for (s, arity) in functions {
            encoding.functor(s, arity);
        }
        encoding
    }

    /// The token of functor `sym`/`arity`, adding it if new. Canonical decimal numerals
    /// are integers, not functors.
    fn functor(&mut self, sym: Sym, arity: u32) -> Token {
        if let Some(t) = self.get(sym, arity) {
            return t;
        }
        let t = self.functors.len() as Token;
        self.functors.push((sym, arity));
        match arity {
            0 => self.constants[sym as usize] = Some(t),
            _ => _ = self.ids.insert((sym, arity), t),
        }
        t
    }

    /// The token of functor `sym`/`arity` if the program has it (numerals as integers).
    pub fn get(&self, sym: Sym, arity: u32) -> Option<Token> {
        match arity {
            0 => self.constants[sym as usize],
            _ => self.ids.get(&(sym, arity)).copied(),
        }
    }

    /// Appends the tokens of ground term `id` of `program` to `out`.
    pub fn encode(&self, program: &Program, id: TermId, out: &mut Vec<Token>) {
        self.each_token(program, id, &mut |token| out.push(token));
    }

    /// Calls `f` with each token of ground term `id` of `program`, in order: encoding into
    /// a pattern or a key without a list of tokens in between.
    pub fn each_token(&self, program: &Program, id: TermId, f: &mut impl FnMut(Token)) {
        match program.terms.term(id) {
            GroundTerm::Const(s) => f(self.get(*s, 0).unwrap_or(Token::MAX)),
            GroundTerm::Func(s, args) => {
                f(self.get(*s, args.len() as u32).unwrap_or(Token::MAX));
                for &a in args.iter() {
                    self.each_token(program, a, f);
                }
            }
        }
    }

    /// The symbol and arity of functor `token` (`None` for integers).
    pub fn functor_of(&self, token: Token) -> Option<(Sym, u32)> {
        self.functors.get(token as usize).copied()
    }

    /// The arity of `token` (0 for integers).
    pub fn arity(&self, token: Token) -> u32 {
        if token >= INT_BASE {
            0
        } else {
            self.functors[token as usize].1
        }
    }

    /// The arities of all functor tokens, indexed by token, for fast term skipping.
    pub fn arities(&self) -> Vec<u32> {
        self.functors.iter().map(|f| f.1).collect()
    }

    /// Writes the spelling of `token`'s symbol (or its integer) to `out`.
    pub fn name(&self, token: Token, out: &mut String) {
        out.push_str(self.spell(token, &mut Digits::default()));
    }

    /// The spelling of `token`'s symbol, or its integer spelled in `digits`: no allocation, for
    /// writers that spell millions of tokens.
    pub fn spell<'a>(&'a self, token: Token, digits: &'a mut Digits) -> &'a str {
        match int_value(token) {
            Some(n) => digits.spell(n),
            None => &self.names[self.functors[token as usize].0 as usize],
        }
    }
}

/// Room to spell an integer token in (at most 12 digits and a sign, see [`parse_int`]).
#[derive(Default)]
pub struct Digits([u8; 24]);

impl Digits {
    /// `n` in decimal.
    fn spell(&mut self, n: i64) -> &str {
        use std::io::Write as _;
        let mut rest = &mut self.0[..];
        write!(rest, "{n}").expect("an i64 fits in 24 bytes");
        let unused = rest.len();
        let len = self.0.len() - unused;
        std::str::from_utf8(&self.0[..len]).expect("decimal digits are UTF-8")
    }
}

/// The (symbol, arity) of every function application with variables inside `term`.
fn collect_functions(term: &Term, out: &mut Vec<(Sym, u32)>) {
    if let Term::Func(s, args) = term {
        out.push((*s, args.len() as u32));
        args.iter().for_each(|a| collect_functions(a, out));
    }
}

/// The integer a canonical decimal numeral (`0`, `42`, `-7`; not `007` or `+1`) denotes.
fn parse_int(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && text != "-0"
        && digits.len() <= 12;
    canonical.then(|| text.parse().ok()).flatten()
}

/// The token of integer `n`, if it is in the encodable range.
pub fn int_token(n: i64) -> Option<Token> {
    (INT_MIN..INT_END)
        .contains(&n)
        .then(|| INT_BASE + (n - INT_MIN) as Token)
}

/// The integer `token` encodes, if it is an integer token.
pub fn int_value(token: Token) -> Option<i64> {
    (token >= INT_BASE).then(|| (token - INT_BASE) as i64 + INT_MIN)
}

/// The arity of `token` given each functor token's arity (0 for integers and constants).
pub fn token_arity(token: Token, arities: &[u32]) -> u32 {
    if token >= INT_BASE {
        0
    } else {
        arities[token as usize]
    }
}

/// The index one past the end of the term starting at `tokens[start]`, given each functor
/// token's arity; `None` if the sequence ends first.
pub fn term_end(tokens: &[Token], start: usize, arities: &[u32]) -> Option<usize> {
    let mut need: u64 = 1;
    let mut i = start;
    while need > 0 {
        let t = *tokens.get(i)?;
        need = need - 1 + token_arity(t, arities) as u64;
        i += 1;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_round_trip_and_numerals_are_canonical() {
        for n in [0, 1, 42, -7, INT_END - 1, INT_MIN] {
            assert_eq!(int_token(n).and_then(int_value), Some(n));
        }
        assert_eq!(int_token(INT_END), None);
        assert_eq!(parse_int("007"), None);
        assert_eq!(parse_int("-0"), None);
        assert_eq!(parse_int("12"), Some(12));
    }

    #[test]
    fn integers_are_spelled_in_decimal_without_allocating() {
        for n in [0, 7, 42, -7, INT_END - 1, INT_MIN, i64::MIN, i64::MAX] {
            assert_eq!(Digits::default().spell(n), n.to_string());
        }
    }

    #[test]
    fn term_end_skips_nested_terms() {
        // f/2 = 0, a/0 = 1, g/1 = 2: f(g(a), 5) then a
        let arities = [2, 0, 1];
        let five = int_token(5).unwrap();
        let tokens = [0, 2, 1, five, 1];
        assert_eq!(term_end(&tokens, 0, &arities), Some(4));
        assert_eq!(term_end(&tokens, 1, &arities), Some(3));
        assert_eq!(term_end(&tokens[..3], 0, &arities), None);
    }
}
