//! A source file held in memory, with the line index used to render locations.

use super::Span;

/// The text of one input file and its name as the user wrote it.
///
/// Line starts are computed once on creation; LF, CRLF and CR alone all end a line, so that
/// locations agree with what an editor shows whatever the file's line ends.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path or label shown in diagnostics (`-` for standard input).
    pub name: String,
    /// The full text, byte-order mark included (spans are offsets into this).
    pub text: String,
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// Wraps `text` read from `name`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let bytes = text.as_bytes();
        let mut line_starts = vec![0u32];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => line_starts.push(i as u32 + 1),
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    line_starts.push(i as u32 + 2);
                    i += 1;
                }
                b'\r' => line_starts.push(i as u32 + 1),
                _ => {}
            }
            i += 1;
        }
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// The 1-based line and column (in characters) of byte `offset`.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).min(self.text.len());
        let column = self
            .text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count());
        (line + 1, column + 1)
    }

    /// The text of 1-based `line`, without its line end.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1] as usize;
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |&e| e as usize);
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// The source text under `span`.
    pub fn slice(&self, span: Span) -> &str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }
}
