//! Byte ranges into one source file.
//!
//! A `Span` is two byte offsets; line and column are computed only when a diagnostic is
//! rendered (see [`crate::syntax::SourceFile`]), so spans stay 8 bytes and cheap to copy.

/// A half-open byte range `start..end` in the text of one source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// Offset of the first byte.
    pub start: u32,
    /// Offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// The span `start..end`; offsets beyond `u32::MAX` are clamped (files that large are
    /// rejected before parsing).
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start.min(u32::MAX as usize) as u32,
            end: end.min(u32::MAX as usize) as u32,
        }
    }

    /// The span moved `offset` bytes on: a span into one statement's text, placed in the
    /// file where that text starts.
    pub fn shifted(self, offset: u32) -> Span {
        Span {
            start: self.start + offset,
            end: self.end + offset,
        }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}
