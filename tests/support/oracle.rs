//! The gringo oracle (GDL.md §5): grounds the ASP translation of a game with gringo and reads
//! its output back.
//!
//! Input: the text of `gdlground export-asp`. Output: S, the least model of the relaxed
//! translation, as KIF atoms in exactly the form `gdlground atoms` prints (`(cell 1 2 b)`,
//! `terminal`); or, for the full translation, gringo's time and ground rule count.
//! The tool is `gringo` (Debian's 5.4.1), `clingo --mode=gringo`, or `python3 -m clingo
//! --mode=gringo` (PyPI's clingo 5.8.3), whichever runs first, fed on stdin and killed after
//! `GDLGROUND_GRINGO_TIMEOUT` seconds (default 60).

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{ChildStdout, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long gringo may run when `GDLGROUND_GRINGO_TIMEOUT` does not say.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The command that runs gringo, as program and leading arguments, or `None` if no tool runs.
/// Found once per test binary.
pub fn gringo() -> Option<Vec<String>> {
    static FOUND: OnceLock<Option<Vec<String>>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let candidates: [&[&str]; 3] = [
                &["gringo"],
                &["clingo", "--mode=gringo"],
                &["python3", "-m", "clingo", "--mode=gringo"],
            ];
            candidates
                .iter()
                .map(|c| c.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .find(|c| {
                    Command::new(&c[0])
                        .args(&c[1..])
                        .arg("--version")
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .is_ok_and(|s| s.success())
                })
        })
        .clone()
}

/// [`gringo`], for a test that needs it: when no tool is found, fails under `CI=true` and
/// otherwise prints a visible skip note, and the test should return.
pub fn gringo_or_skip() -> Option<Vec<String>> {
    let found = gringo();
    if found.is_none() {
        let ci = std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1");
        assert!(
            !ci,
            "gringo/clingo not found, and CI=true needs the oracle: pip install clingo==5.8.3"
        );
        // Straight to stderr: the test harness captures `eprintln!` of passing tests.
        let note = "skipping: gringo/clingo not found (pip install clingo==5.8.3)\n";
        let _ = std::io::stderr().write_all(note.as_bytes());
    }
    found
}

/// S: the atoms gringo derives from a relaxed translation, as sorted KIF text.
pub fn relaxed_atoms(asp_text: &str) -> Result<BTreeSet<String>, String> {
    let (atoms, _) = ground(asp_text, |stdout| {
        let mut atoms = BTreeSet::new();
        let mut first_error = None;
        for line in BufReader::new(stdout).lines() {
            let line = line.map_err(|e| format!("cannot read gringo's output: {e}"))?;
            if first_error.is_some() {
                continue; // drain the pipe so that gringo can finish
            }
            match line.strip_suffix('.').map(kif_atom) {
                Some(Ok(atom)) => {
                    atoms.insert(atom);
                }
                Some(Err(e)) => first_error = Some(format!("{e} in gringo's line `{line}`")),
                None => first_error = Some(format!("gringo's line `{line}` is not a fact")),
            }
        }
        first_error.map_or(Ok(atoms), Err)
    })?;
    atoms
}

/// Grounds a full translation: gringo's wall time (process start to exit) and the number of
/// ground rules with a non-empty body it printed (facts are not counted, as in GDL.md §4).
pub fn full_ground(asp_text: &str) -> Result<(Duration, usize), String> {
    let (rules, time) = ground(asp_text, |stdout| {
        let mut rules = 0;
        for line in BufReader::new(stdout).lines() {
            let line = line.map_err(|e| format!("cannot read gringo's output: {e}"))?;
            rules += usize::from(has_body(&line));
        }
        Ok::<usize, String>(rules)
    })?;
    Ok((time, rules?))
}

/// Runs `gringo --text` on `asp_text`, with `read` consuming its output meanwhile; fails if
/// gringo is missing, exits with an error, or runs out of time.
fn ground<T: Send + 'static>(
    asp_text: &str,
    read: impl FnOnce(ChildStdout) -> T + Send + 'static,
) -> Result<(T, Duration), String> {
    let command = gringo().ok_or("gringo/clingo not found (pip install clingo==5.8.3)")?;
    let timeout = std::env::var("GDLGROUND_GRINGO_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs);
    let start = Instant::now();
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .arg("--text")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", command.join(" ")))?;
    let (Some(mut stdin), Some(stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        panic!("internal error: gringo's pipes were not opened");
    };
    let input = asp_text.to_owned();
    // A write error means gringo stopped reading: its exit status tells why.
    let writer = std::thread::spawn(move || drop(stdin.write_all(input.as_bytes())));
    let reader = std::thread::spawn(move || read(stdout));
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!("gringo ran out of time ({} s)", timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => break Err(format!("cannot wait for gringo: {e}")),
        }
    };
    let time = start.elapsed();
    let _ = writer.join();
    let output = reader.join().map_err(|_| "the output reader panicked")?;
    let errors = errors.join().unwrap_or_default();
    match status? {
        s if s.success() => Ok((output, time)),
        s => Err(format!("gringo failed ({s}):\n{errors}")),
    }
}

/// Whether a line of `gringo --text` output is a rule with a body: `:-` outside strings.
fn has_body(line: &str) -> bool {
    let mut in_string = false;
    let mut escaped = false;
    let mut previous = ' ';
    for c in line.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '-' if !in_string && previous == ':' => return true,
            _ => {}
        }
        previous = c;
    }
    false
}

/// The KIF text of a ground atom of the translation: `r_cell("1",f_f("b"))` → `(cell 1 (f b))`,
/// `r_terminal` → `terminal`.
fn kif_atom(text: &str) -> Result<String, String> {
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

/// The command that runs clingo as a solver (`clingo`, or PyPI's `python3 -m clingo`), or
/// `None` if neither runs. Found once per test binary. Used by `tests/validate.rs` only.
#[allow(dead_code)]
pub fn clingo() -> Option<Vec<String>> {
    static FOUND: OnceLock<Option<Vec<String>>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let candidates: [&[&str]; 2] = [&["clingo"], &["python3", "-m", "clingo"]];
            candidates
                .iter()
                .map(|c| c.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .find(|c| {
                    Command::new(&c[0])
                        .args(&c[1..])
                        .arg("--version")
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .is_ok_and(|s| s.success())
                })
        })
        .clone()
}

/// The unique answer set of `asp_text` (a stratified program), as KIF atoms in the form
/// `gdlground atoms` prints; an error if clingo is missing, fails, or finds no or two answer
/// sets. Used by `tests/validate.rs` only.
#[allow(dead_code)]
pub fn answer_set(asp_text: &str) -> Result<BTreeSet<String>, String> {
    let command = clingo().ok_or("clingo not found (pip install clingo==5.8.3)")?;
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .args(["2", "-V0", "--outf=0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", command.join(" ")))?;
    let Some(mut stdin) = child.stdin.take() else {
        panic!("internal error: clingo's stdin was not opened");
    };
    let input = asp_text.to_owned();
    let writer = std::thread::spawn(move || drop(stdin.write_all(input.as_bytes())));
    let output = child
        .wait_with_output()
        .map_err(|e| format!("cannot wait for clingo: {e}"))?;
    let _ = writer.join();
    // clingo exits 10 or 30 when satisfiable (20 unsatisfiable); python3 -m clingo exits 0.
    if !matches!(output.status.code(), Some(0 | 10 | 30)) {
        return Err(format!(
            "clingo failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let models: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("SATISFIABLE") && !l.starts_with("UNSATISFIABLE"))
        .collect();
    let [model] = models[..] else {
        return Err(format!("expected one answer set, clingo printed:\n{text}"));
    };
    let mut atoms = BTreeSet::new();
    let mut start = 0;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in model.char_indices().chain([(model.len(), ' ')]) {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            ' ' if !in_string => {
                if i > start {
                    atoms.insert(kif_atom(&model[start..i])?);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    Ok(atoms)
}

/// The ASP fact of a ground KIF atom, as the translation spells it: `(true (cell 1 b))` →
/// `r_true(f_cell("1","b")).`, `terminal` → `r_terminal.` Used by `tests/validate.rs` only.
#[allow(dead_code)]
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
