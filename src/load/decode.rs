//! A game file's bytes as text. Games are found with comments written in Latin-1 or
//! Windows-1252 (`; by L\xe9s Cam\xe9les`); what a comment holds never reaches the program, so
//! bytes that are not UTF-8 inside a comment are read as `?`, one for each byte, which keeps
//! every later byte at its offset (diagnostics point into the file as it is). Outside a
//! comment such bytes are an error that says which encoding they look like.

use super::LoadError;
use crate::syntax::{Code, Diagnostic, SourceFile, Span, Syntax};

/// The text of `bytes`, with the bytes that are not UTF-8 inside `syntax`'s comments read as
/// `?`; otherwise the error at the first such byte outside a comment.
pub fn decode(name: String, bytes: Vec<u8>, syntax: Syntax) -> Result<SourceFile, LoadError> {
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => return Ok(SourceFile::new(name, text)),
        Err(e) => e.into_bytes(),
    };
    let mut text = Vec::with_capacity(bytes.len());
    let mut place = Place::Code;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            place = place.after(c, syntax);
        }
        text.extend_from_slice(chunk.valid().as_bytes());
        if !chunk.invalid().is_empty() && place != Place::Comment {
            let at = text.len();
            let lossy = String::from_utf8_lossy(&bytes).into_owned();
            let source = Box::new(SourceFile::new(name, lossy));
            return Err(LoadError::Rejected(source, vec![not_utf8(&bytes, at)]));
        }
        text.resize(text.len() + chunk.invalid().len(), b'?');
    }
    let text = String::from_utf8(text).expect("invalid bytes were replaced by `?`");
    Ok(SourceFile::new(name, text))
}

/// Where a character of the text is, as far as comments go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// In a statement.
    Code,
    /// In a quoted constant of the infix syntaxes (a `%` there starts no comment).
    Quoted,
    /// After a `\` in a quoted constant.
    Escaped,
    /// In a comment, which runs to the end of its line.
    Comment,
}

impl Place {
    /// Where the text is after `c`, read at `self` in `syntax`.
    fn after(self, c: char, syntax: Syntax) -> Place {
        if c == '\n' || c == '\r' {
            return Place::Code;
        }
        match (self, syntax, c) {
            (Place::Code, Syntax::Kif, ';') => Place::Comment,
            (Place::Code, Syntax::Infix | Syntax::Hrf, '%') => Place::Comment,
            (Place::Code, Syntax::Infix | Syntax::Hrf, '"') => Place::Quoted,
            (Place::Quoted, _, '"') => Place::Code,
            (Place::Quoted, _, '\\') => Place::Escaped,
            (Place::Escaped, _, _) => Place::Quoted,
            (place, _, _) => place,
        }
    }
}

/// The error for bytes that are not UTF-8 at offset `at` of `bytes`, outside a comment.
fn not_utf8(bytes: &[u8], at: usize) -> Diagnostic {
    let span = Span::new(at, at + 1);
    let message = format!(
        "the file is not valid UTF-8 here (byte 0x{:02x})",
        bytes[at]
    );
    let (looks, iconv) = encoding(bytes);
    Diagnostic::error(Code::Syntax, span, message)
        .with_note(None, format!("the bytes look like {looks}"))
        .with_hint(format!(
            "convert the file to UTF-8 (`iconv -f {iconv} -t UTF-8 GAME > GAME.utf8`); \
             in a comment such bytes are skipped"
        ))
}

/// The encoding `bytes` look like, and its name for `iconv`: UTF-16 when it starts with a
/// byte-order mark or a tenth of its bytes are NUL; Windows-1252 when a byte it does not share
/// with Latin-1 (0x80–0x9f: its quotes, dashes and the euro) is among the bytes that are not
/// UTF-8; else Latin-1.
fn encoding(bytes: &[u8]) -> (String, &'static str) {
    let nuls = bytes.iter().filter(|&&b| b == 0).count();
    let marked = bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]);
    if marked || nuls * 10 > bytes.len() {
        return ("UTF-16".into(), "UTF-16");
    }
    let invalid: Vec<u8> = (bytes.utf8_chunks())
        .flat_map(|chunk| chunk.invalid().iter().copied())
        .collect();
    let sample: String = invalid.iter().take(8).map(|&b| char::from(b)).collect();
    if invalid.iter().any(|&b| b < 0xa0) {
        return ("Windows-1252".into(), "WINDOWS-1252");
    }
    (
        format!("Latin-1 (ISO 8859-1), where they read `{sample}`"),
        "LATIN1",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(bytes: &[u8], syntax: Syntax) -> Result<String, String> {
        let read = decode("g".into(), bytes.to_vec(), syntax);
        read.map(|s| s.text).map_err(|e| e.render())
    }

    #[test]
    fn latin_1_in_a_comment_is_read_byte_for_byte_as_question_marks() {
        let kif = b"; by L\xe9s Cam\xe9les\n(role x)";
        assert_eq!(
            decoded(kif, Syntax::Kif).unwrap(),
            "; by L?s Cam?les\n(role x)"
        );
        let infix = b"role(x) % caf\xe9\nrole(y)";
        assert_eq!(
            decoded(infix, Syntax::Infix).unwrap(),
            "role(x) % caf?\nrole(y)"
        );
    }

    #[test]
    fn outside_a_comment_the_error_is_located_and_names_the_encoding() {
        let err = decoded(b"; fine\n(role caf\xe9)\n", Syntax::Kif).unwrap_err();
        assert!(
            err.contains("g:2:10: error[E001]: the file is not valid UTF-8 here (byte 0xe9)"),
            "{err}"
        );
        assert!(
            err.contains("Latin-1 (ISO 8859-1), where they read `é`"),
            "{err}"
        );
        assert!(err.contains("iconv -f LATIN1"), "{err}");
        let quotes = decoded(b"(role \x93x\x94)", Syntax::Kif).unwrap_err();
        assert!(quotes.contains("Windows-1252"), "{quotes}");
        let wide = decoded(b"\xff\xfe(\0r\0o\0l\0e\0", Syntax::Kif).unwrap_err();
        assert!(wide.contains("UTF-16"), "{wide}");
    }

    #[test]
    fn a_comment_ends_at_its_line_and_never_starts_in_a_quoted_constant() {
        assert!(decoded(b"; note\n(role \xe9)", Syntax::Kif).is_err());
        assert!(decoded(b"role(\"100%\xe9\")", Syntax::Infix).is_err());
        assert!(decoded(b"role(\"a\\\"%\") % \xe9", Syntax::Infix).is_ok());
        // `%` starts no comment in KIF, nor `;` in the infix syntaxes.
        assert!(decoded(b"(role a%\xe9)", Syntax::Kif).is_err());
        assert!(decoded(b"role(a). ; \xe9", Syntax::Hrf).is_err());
    }
}
