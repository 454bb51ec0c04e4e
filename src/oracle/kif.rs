//! The names of the ASP translation read back: gringo's ground atoms as KIF text, and KIF atoms
//! as ASP facts. The inverse of the name mapping of [`crate::write::asp`].
//!
//! Input: one ground atom as gringo prints it (`r_cell("1",f_f("b"))`), or as `gdlground atoms`
//! prints it (`(cell 1 (f b))`). Output: the other form. Errors are messages, lower-case.

/// The KIF text of a ground atom of the translation: `r_cell("1",f_f("b"))` → `(cell 1 (f b))`,
/// `r_terminal` → `terminal`.
pub fn kif_atom(text: &str) -> Result<String, String> {
    let mut reader = Reader { text, at: 0 };
    let mut out = String::new();
    reader.application("r_", &mut out)?;
    if reader.at != text.len() {
        return Err(format!("unexpected text at byte {}", reader.at));
    }
    Ok(out)
}

/// Reads the terms of one gringo atom.
struct Reader<'t> {
    text: &'t str,
    at: usize,
}

impl Reader<'_> {
    /// `prefix name` or `prefix name(t1,...,tn)`, written `name` or `(name t1 ... tn)`.
    fn application(&mut self, prefix: &str, out: &mut String) -> Result<(), String> {
        let start = self.at;
        let rest = &self.text[start..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '\''))
            .unwrap_or(rest.len());
        let name = rest[..len]
            .strip_prefix(prefix)
            .ok_or_else(|| format!("`{}` does not start with {prefix}", &rest[..len]))?;
        let name = unescape_name(name)?;
        self.at += len;
        if !self.eat('(') {
            out.push_str(&name);
            return Ok(());
        }
        out.push('(');
        out.push_str(&name);
        loop {
            out.push(' ');
            self.term(out)?;
            if self.eat(')') {
                break;
            }
            if !self.eat(',') {
                return Err(format!("expected `,` or `)` at byte {}", self.at));
            }
        }
        out.push(')');
        Ok(())
    }

    /// A constant (quoted string) or a function term.
    fn term(&mut self, out: &mut String) -> Result<(), String> {
        if !self.eat('"') {
            return self.application("f_", out);
        }
        let mut chars = self.text[self.at..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.at += i + 1;
                    return Ok(());
                }
                '\\' => match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, c @ ('\\' | '"'))) => out.push(c),
                    _ => return Err(format!("bad escape in the string at byte {}", self.at)),
                },
                c => out.push(c),
            }
        }
        Err("unterminated string".into())
    }

    /// Skips `c` if it comes next.
    fn eat(&mut self, c: char) -> bool {
        let next = self.text[self.at..].starts_with(c);
        if next {
            self.at += c.len_utf8();
        }
        next
    }
}

/// Undoes the name escapes of the translation: `__` → `_`, `_xHH_` → byte HH.
fn unescape_name(escaped: &str) -> Result<String, String> {
    let bad = || format!("`{escaped}` is not an escaped name");
    let mut bytes = Vec::with_capacity(escaped.len());
    let mut rest = escaped.as_bytes();
    let hex = |d: u8| match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        _ => None,
    };
    while let Some((&b, tail)) = rest.split_first() {
        match (b, tail) {
            (b'a'..=b'z' | b'0'..=b'9', _) => {
                bytes.push(b);
                rest = tail;
            }
            (b'_', [b'_', tail @ ..]) => {
                bytes.push(b'_');
                rest = tail;
            }
            (b'_', [b'x', hi, lo, b'_', tail @ ..]) => {
                let (Some(hi), Some(lo)) = (hex(*hi), hex(*lo)) else {
                    return Err(bad());
                };
                bytes.push(hi << 4 | lo);
                rest = tail;
            }
            _ => return Err(bad()),
        }
    }
    String::from_utf8(bytes).map_err(|_| bad())
}

/// The ASP fact of a ground KIF atom, as the translation spells it: `(true (cell 1 b))` →
/// `r_true(f_cell("1","b")).`, `terminal` → `r_terminal.`
pub fn asp_fact(kif: &str) -> Result<String, String> {
    /// A KIF term: a name or a parenthesised list.
    enum Sexp<'t> {
        Name(&'t str),
        List(Vec<Sexp<'t>>),
    }
    fn parse<'t>(
        tokens: &mut std::iter::Peekable<impl Iterator<Item = &'t str>>,
    ) -> Result<Sexp<'t>, String> {
        match tokens.next() {
            Some("(") => {
                let mut items = Vec::new();
                while tokens.peek() != Some(&")") {
                    items.push(parse(tokens)?);
                }
                tokens.next();
                Ok(Sexp::List(items))
            }
            Some(")") | None => Err("unbalanced parentheses".into()),
            Some(name) => Ok(Sexp::Name(name)),
        }
    }
    fn escape(name: &str, out: &mut String) {
        for b in name.bytes() {
            match b {
                b'a'..=b'z' | b'0'..=b'9' => out.push(b as char),
                b'_' => out.push_str("__"),
                _ => out.push_str(&format!("_x{b:02x}_")),
            }
        }
    }
    fn application(prefix: &str, items: &[Sexp<'_>], out: &mut String) -> Result<(), String> {
        let Some((Sexp::Name(name), args)) = items.split_first() else {
            return Err("a list that does not start with a name".into());
        };
        out.push_str(prefix);
        escape(name, out);
        if !args.is_empty() {
            out.push('(');
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match arg {
                    Sexp::Name(c) => {
                        out.push('"');
                        for ch in c.chars() {
                            match ch {
                                '"' => out.push_str("\\\""),
                                '\\' => out.push_str("\\\\"),
                                ch => out.push(ch),
                            }
                        }
                        out.push('"');
                    }
                    Sexp::List(items) => application("f_", items, out)?,
                }
            }
            out.push(')');
        }
        Ok(())
    }
    let spaced = kif.replace('(', " ( ").replace(')', " ) ");
    let mut tokens = spaced.split_whitespace().peekable();
    let atom = parse(&mut tokens)?;
    if tokens.next().is_some() {
        return Err(format!("text after the atom in `{kif}`"));
    }
    let mut out = String::new();
    match atom {
        Sexp::Name(name) => application("r_", &[Sexp::Name(name)], &mut out)?,
        Sexp::List(items) => application("r_", &items, &mut out)?,
    }
    out.push('.');
    Ok(out)
}
