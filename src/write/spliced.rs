//! A ground game's text kept between versions of a live session: the next version's text
//! is the previous one's with the removed lines cut out and the added ones rendered in
//! place, when the versions write the lines they share alike and in the same order.
//!
//! Rendering skirmish's 2.9 million lines takes most of a second. The lines both versions
//! share are not copied either: a text is a list of pieces, each a run of lines of a block
//! of rendered text that versions share, and a new version's pieces are the previous ones
//! cut around the removed lines, with a block of the added lines between them. Writing the
//! text writes the pieces in order. Copying hex's 8.5 MB into a new buffer took a quarter
//! of an edit's time; the pieces are few (an edit adds about two per changed line), and are
//! copied into one block again when they are many or hold on to much more text than the
//! current one.

use super::ground::{rule_line, AtomText};
use crate::ground::{AtomId, GroundProgram};
use crate::grounding::GroundDelta;
use crate::hash::FastMap;
use std::ops::Range;
use std::sync::Arc;

/// A ground game's text (as [`super::ground::text`] writes it), line by line.
#[derive(Clone, Debug, Default)]
pub struct Text {
    /// The lines, in order: facts' then rules'.
    pieces: Vec<Piece>,
    /// How many lines.
    lines: usize,
    /// The facts, by atom id (the first lines).
    facts: Vec<AtomId>,
}

/// Rendered lines, shared by the texts whose pieces point into them.
#[derive(Debug)]
struct Block {
    bytes: Vec<u8>,
    /// Where each line starts, and where the last ends.
    starts: Vec<usize>,
}

/// A run of consecutive lines of a block.
#[derive(Clone, Debug)]
struct Piece {
    block: Arc<Block>,
    lines: Range<usize>,
}

impl Piece {
    /// The piece's text.
    fn bytes(&self) -> &[u8] {
        let starts = &self.block.starts;
        &self.block.bytes[starts[self.lines.start]..starts[self.lines.end]]
    }
}

impl Block {
    /// A block without lines, for about `bytes` bytes and `lines` lines.
    fn with_capacity(bytes: usize, lines: usize) -> Block {
        let mut starts = Vec::with_capacity(lines + 1);
        starts.push(0);
        let bytes = Vec::with_capacity(bytes);
        Block { bytes, starts }
    }

    /// Appends a line (with its line end).
    fn push(&mut self, line: &[u8]) {
        self.bytes.extend_from_slice(line);
        self.starts.push(self.bytes.len());
    }
}

impl Text {
    /// The text of `ground`, its atoms spelled by `atoms`.
    pub fn new(ground: &GroundProgram, atoms: &AtomText<'_>) -> Text {
        let mut text = Text::default();
        text.rebuild(ground, atoms);
        text
    }

    /// Makes this the text of `ground`, every line rendered afresh.
    pub fn rebuild(&mut self, ground: &GroundProgram, atoms: &AtomText<'_>) {
        let all: Vec<usize> = (0..ground.rules.len()).collect();
        *self = Text::default();
        self.spliced(ground, atoms, &ground.facts, &all, &[]);
    }

    /// Makes this the text of `ground`, the version after this text's one, when `delta` is
    /// what changed and the lines both versions have are written alike and in the same order.
    pub fn advance(&mut self, ground: &GroundProgram, atoms: &AtomText<'_>, delta: &GroundDelta) {
        let line_of_fact = |f: &AtomId| self.facts.binary_search(f).ok();
        let mut removed: Vec<usize> = (delta.facts_removed.iter())
            .filter_map(line_of_fact)
            .chain(delta.rules_removed.iter().map(|r| self.facts.len() + r))
            .collect();
        removed.sort_unstable();
        let (facts, rules) = (&delta.facts_added, &delta.rules_added);
        self.spliced(ground, atoms, facts, rules, &removed);
    }

    /// The text's runs of bytes, in order: written one after the other, they are the text.
    pub fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        self.pieces.iter().map(Piece::bytes)
    }

    /// How many bytes the text has.
    pub fn byte_len(&self) -> usize {
        self.pieces.iter().map(|p| p.bytes().len()).sum()
    }

    /// The bytes of this text that may differ from those of `old` (another version's text,
    /// such as the one a file still holds) at the same place: before the range, and after it
    /// when the texts are as long, both texts hold the same lines of the same blocks. Found
    /// from the pieces alone, without comparing bytes: an edit leaves most of a text in the
    /// blocks it shares with the versions before, so a file that holds `old` needs only the
    /// range written over it (skirmish's 18 MB for an edit of 49 lines).
    pub fn changed_from(&self, old: &Text) -> Range<usize> {
        let (len, old_len) = (self.byte_len(), old.byte_len());
        let front = shared(self.pieces.iter(), old.pieces.iter(), false);
        // The lines after a change are in place only when both texts are as long.
        let back = match len == old_len {
            true => shared(self.pieces.iter().rev(), old.pieces.iter().rev(), true),
            false => 0,
        };
        front..(len - back).max(front)
    }

    /// Whether this text has lines of a block that `other` has lines of too. A text spliced
    /// from this one has lines of this one's blocks and of new blocks only: `other` can be
    /// found to share lines with it ([`Text::changed_from`]) only if this holds.
    pub fn shares_a_block(&self, other: &Text) -> bool {
        let blocks = |text: &Text| {
            let mut blocks: Vec<*const Block> =
                text.pieces.iter().map(|p| Arc::as_ptr(&p.block)).collect();
            blocks.sort_unstable();
            blocks
        };
        let theirs = blocks(other);
        (blocks(self).iter()).any(|b| theirs.binary_search(b).is_ok())
    }

    /// The text's bytes `range`, as runs in order.
    pub fn pieces_in(&self, range: Range<usize>) -> impl Iterator<Item = &[u8]> {
        let mut start = 0;
        self.pieces.iter().filter_map(move |piece| {
            let bytes = piece.bytes();
            let (from, to) = (start, start + bytes.len());
            start = to;
            let (low, high) = (range.start.max(from), range.end.min(to));
            (low < high).then(|| &bytes[low - from..high - from])
        })
    }

    /// The text as one string of bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        (self.pieces.iter()).for_each(|p| bytes.extend_from_slice(p.bytes()));
        bytes
    }

    /// Makes this the text of `ground` with the facts `new_facts` (atom ids, sorted) and
    /// rules `new_rules` (indices, sorted) rendered, and every other line taken from this
    /// text without its lines `removed` (sorted), in order.
    fn spliced(
        &mut self,
        ground: &GroundProgram,
        atoms: &AtomText<'_>,
        new_facts: &[AtomId],
        new_rules: &[usize],
        removed: &[usize],
    ) {
        let names = names(ground, atoms, new_facts, new_rules);
        // The new lines' places, and their text in one block.
        let count = new_facts.len() + new_rules.len();
        let mut block = Block::with_capacity(0, count);
        let mut places = Vec::with_capacity(count);
        let mut line = String::new();
        for f in new_facts {
            let place = ground.facts.binary_search(f);
            places.push(place.expect("an added fact is a fact"));
            line.clear();
            line.push_str(&names[f]);
            line.push('\n');
            block.push(line.as_bytes());
        }
        for &r in new_rules {
            places.push(ground.facts.len() + r);
            line.clear();
            rule_line(ground, atoms, &names, ground.rules.get(r), &mut line);
            block.push(line.as_bytes());
        }
        let lines = ground.facts.len() + ground.rules.len();
        self.splice(
            Arc::new(block),
            &places,
            lines,
            ground.facts.clone(),
            removed,
        );
    }

    /// Makes this a text of `lines` lines (the first are the facts `facts`): its lines
    /// `places` (sorted) are those of `block`, in order, and the others are this text's
    /// without its lines `removed` (sorted), in order.
    fn splice(
        &mut self,
        block: Arc<Block>,
        places: &[usize],
        lines: usize,
        facts: Vec<AtomId>,
        removed: &[usize],
    ) {
        let mut kept = Kept::new(std::mem::take(&mut self.pieces), removed);
        let mut text = Text {
            pieces: Vec::with_capacity(kept.pieces.len() + 2 * places.len() + 1),
            lines,
            facts,
        };
        let mut next = 0;
        for (i, &place) in places.iter().enumerate() {
            kept.take(place - next, &mut text.pieces);
            push(&mut text.pieces, &block, i..i + 1);
            next = place + 1;
        }
        kept.take(text.lines - next, &mut text.pieces);
        assert!(kept.is_empty(), "every kept line has a place");
        text.compact_if_scattered();
        *self = text;
    }

    /// Copies the text into one block when its pieces are many for its lines, or the blocks
    /// they point into hold more than about twice its bytes: each edit adds pieces, and
    /// leaves the lines it removed in their blocks.
    fn compact_if_scattered(&mut self) {
        let bytes = self.byte_len();
        let mut blocks: Vec<&Arc<Block>> = self.pieces.iter().map(|p| &p.block).collect();
        blocks.sort_unstable_by_key(|b| Arc::as_ptr(b));
        blocks.dedup_by(|a, b| Arc::ptr_eq(a, b));
        let held: usize = blocks.iter().map(|b| b.bytes.len()).sum();
        if self.pieces.len() > 1024 + self.lines / 64 || held > 2 * bytes + (1 << 20) {
            self.compact();
        }
    }

    /// Copies the text into one block (which a text does by itself when its pieces are
    /// scattered).
    pub fn compact(&mut self) {
        let bytes = self.byte_len();
        let mut block = Block::with_capacity(bytes, self.lines);
        for piece in &self.pieces {
            let from = &piece.block.starts;
            let (start, base) = (from[piece.lines.start], block.bytes.len());
            block.bytes.extend_from_slice(piece.bytes());
            let ends = &from[piece.lines.start + 1..=piece.lines.end];
            block.starts.extend(ends.iter().map(|s| s - start + base));
        }
        let mut pieces = Vec::with_capacity(1);
        push(&mut pieces, &Arc::new(block), 0..self.lines);
        self.pieces = pieces;
    }
}

/// Appends the lines `lines` of `block` to `pieces`, as part of the last piece when they
/// follow it in the same block.
fn push(pieces: &mut Vec<Piece>, block: &Arc<Block>, lines: Range<usize>) {
    if lines.is_empty() {
        return;
    }
    if let Some(last) = pieces.last_mut() {
        if Arc::ptr_eq(&last.block, block) && last.lines.end == lines.start {
            last.lines.end = lines.end;
            return;
        }
    }
    let block = block.clone();
    pieces.push(Piece { block, lines });
}

/// How many bytes the pieces `a` and `b` share as the same lines of the same blocks, taken
/// in step from their fronts (or their backs, when `back`: the pieces come last first).
fn shared<'a>(
    mut a: impl Iterator<Item = &'a Piece>,
    mut b: impl Iterator<Item = &'a Piece>,
    back: bool,
) -> usize {
    let (mut x, mut y) = (a.next(), b.next());
    // How many lines of `x` and of `y` are taken.
    let (mut x_used, mut y_used, mut bytes) = (0, 0, 0);
    while let (Some(p), Some(q)) = (x, y) {
        let n = (p.lines.len() - x_used).min(q.lines.len() - y_used);
        // The next line taken from each: its index, or past it from the back.
        let (line, other) = match back {
            true => (p.lines.end - x_used, q.lines.end - y_used),
            false => (p.lines.start + x_used, q.lines.start + y_used),
        };
        if !Arc::ptr_eq(&p.block, &q.block) || line != other {
            break;
        }
        let starts = &p.block.starts;
        bytes += match back {
            true => starts[line] - starts[line - n],
            false => starts[line + n] - starts[line],
        };
        (x_used, y_used) = (x_used + n, y_used + n);
        if x_used == p.lines.len() {
            (x, x_used) = (a.next(), 0);
        }
        if y_used == q.lines.len() {
            (y, y_used) = (b.next(), 0);
        }
    }
    bytes
}

/// The lines of a text that a new version keeps, taken from the front.
struct Kept {
    /// The text's pieces with the removed lines cut out; those before `next` are taken.
    pieces: Vec<Piece>,
    next: usize,
}

impl Kept {
    /// The lines of `pieces` but those `removed` (line numbers, sorted).
    fn new(pieces: Vec<Piece>, removed: &[usize]) -> Kept {
        let mut kept = Vec::with_capacity(pieces.len() + removed.len());
        let mut removed = removed.iter().peekable();
        let mut first = 0;
        for piece in pieces {
            let end = first + piece.lines.len();
            let mut from = piece.lines.start;
            while let Some(r) = removed.next_if(|&&r| r < end) {
                let line = piece.lines.start + (r - first);
                push(&mut kept, &piece.block, from..line);
                from = line + 1;
            }
            push(&mut kept, &piece.block, from..piece.lines.end);
            first = end;
        }
        assert!(removed.next().is_none(), "a removed line is a line");
        Kept {
            pieces: kept,
            next: 0,
        }
    }

    /// Appends the next `count` kept lines to `pieces`.
    fn take(&mut self, mut count: usize, pieces: &mut Vec<Piece>) {
        while count > 0 {
            let piece =
                (self.pieces.get_mut(self.next)).expect("a kept line for every line not new");
            let n = piece.lines.len().min(count);
            let start = piece.lines.start;
            push(pieces, &piece.block, start..start + n);
            piece.lines.start += n;
            count -= n;
            if piece.lines.is_empty() {
                self.next += 1;
            }
        }
    }

    /// Whether every kept line was taken.
    fn is_empty(&self) -> bool {
        self.pieces[self.next..].iter().all(|p| p.lines.is_empty())
    }
}

/// The text of the atoms the facts `facts` and rules `rules` of `ground` name, by id: an
/// edit names a few of the game's atoms (a list of all of them, most left empty, was a
/// fiftieth of a connect four goal edit).
fn names(
    ground: &GroundProgram,
    atoms: &AtomText<'_>,
    facts: &[AtomId],
    rules: &[usize],
) -> FastMap<AtomId, String> {
    let mut names = FastMap::default();
    let mut name = |a: AtomId| {
        names.entry(a).or_insert_with(|| {
            let (rel, args) = &ground.atoms[a as usize];
            let mut name = String::new();
            atoms.atom(*rel, args, &mut name);
            name
        });
    };
    facts.iter().for_each(|&f| name(f));
    for &r in rules {
        let rule = ground.rules.get(r);
        name(rule.head);
        rule.body.iter().for_each(|&(_, a)| name(a));
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block of `lines` (each without its line end).
    fn block(lines: &[String]) -> Arc<Block> {
        let mut block = Block::with_capacity(0, lines.len());
        lines
            .iter()
            .for_each(|l| block.push(format!("{l}\n").as_bytes()));
        Arc::new(block)
    }

    /// The next of a sequence of pseudo-random numbers below `n`.
    fn below(seed: &mut u64, n: usize) -> usize {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 33) % n as u64) as usize
    }

    /// The range a text gives against another covers every byte in which they differ at the
    /// same place, and its pieces are the text's bytes there: texts spliced from one another
    /// by random edits (lines removed, lines added, lines removed and added back as they
    /// were, a compaction now and then), against the version before and the one before that.
    #[test]
    fn a_text_differs_from_an_earlier_version_only_in_its_changed_range() {
        let mut seed = 7;
        let mut lines: Vec<String> = (0..60).map(|i| format!("(rule {i})")).collect();
        let mut text = Text::default();
        text.splice(block(&lines), &Vec::from_iter(0..60), 60, Vec::new(), &[]);
        let mut versions = vec![text.clone()];
        let mut last_removed: Vec<(usize, String)> = Vec::new();
        for step in 0..300 {
            let removed: Vec<usize> = match (step % 2, lines.len()) {
                (1, _) | (_, 0) => Vec::new(),
                (_, n) => {
                    let mut r: Vec<usize> = (0..1 + below(&mut seed, 3))
                        .map(|_| below(&mut seed, n))
                        .collect();
                    r.sort_unstable();
                    r.dedup();
                    r
                }
            };
            let kept: Vec<String> = (lines.iter().enumerate())
                .filter(|(i, _)| removed.binary_search(i).is_err())
                .map(|(_, l)| l.clone())
                .collect();
            // Odd steps add back what the step before removed, where it was.
            let added: Vec<(usize, String)> = match step % 2 {
                1 if below(&mut seed, 4) > 0 => std::mem::take(&mut last_removed),
                _ => (0..below(&mut seed, 3))
                    .map(|k| {
                        (
                            below(&mut seed, kept.len() + 1),
                            format!("(new {step} {k})"),
                        )
                    })
                    .collect(),
            };
            last_removed = removed.iter().map(|&r| (r, lines[r].clone())).collect();
            // The new version's lines: the kept ones, with the added ones at their places.
            let mut next = kept;
            let mut places = Vec::new();
            for (at, line) in added {
                let at = at.min(next.len());
                next.insert(at, line);
                places
                    .iter_mut()
                    .filter(|p| **p >= at)
                    .for_each(|p| *p += 1);
                places.push(at);
            }
            places.sort_unstable();
            let new_lines: Vec<String> = places.iter().map(|&p| next[p].clone()).collect();
            text.splice(block(&new_lines), &places, next.len(), Vec::new(), &removed);
            if step % 37 == 36 {
                text.compact();
            }
            lines = next;
            let bytes = text.to_bytes();
            assert_eq!(
                bytes,
                lines
                    .iter()
                    .map(|l| format!("{l}\n"))
                    .collect::<String>()
                    .into_bytes()
            );
            for old in versions.iter().rev().take(2) {
                let old_bytes = old.to_bytes();
                let range = text.changed_from(old);
                assert!(
                    range.start <= range.end && range.end <= bytes.len(),
                    "{range:?}"
                );
                assert_eq!(
                    bytes[..range.start],
                    old_bytes[..range.start],
                    "step {step}"
                );
                match bytes.len() == old_bytes.len() {
                    true => assert_eq!(bytes[range.end..], old_bytes[range.end..], "step {step}"),
                    false => assert_eq!(range.end, bytes.len(), "step {step}"),
                }
                assert_eq!(
                    text.pieces_in(range.clone()).collect::<Vec<_>>().concat(),
                    bytes[range]
                );
            }
            versions.push(text.clone());
        }
    }

    /// A line removed and added back as it was: against the text before the removal, only
    /// that line is written; against the text without it, everything from it on.
    #[test]
    fn a_line_added_back_is_the_whole_change_from_the_text_before_it_went() {
        let lines: Vec<String> = (0..10).map(|i| format!("(rule {i})")).collect();
        let mut first = Text::default();
        first.splice(block(&lines), &Vec::from_iter(0..10), 10, Vec::new(), &[]);
        let mut without = first.clone();
        without.splice(block(&[]), &[], 9, Vec::new(), &[4]);
        let mut back = without.clone();
        back.splice(block(&lines[4..5]), &[4], 10, Vec::new(), &[]);
        // Lines 0 to 3 are 4 * 9 bytes, line 4 another 9.
        assert_eq!(back.changed_from(&first), 36..45);
        assert_eq!(back.changed_from(&without), 36..back.byte_len());
        assert_eq!(first.changed_from(&first.clone()), 90..90);
        assert!(back.shares_a_block(&first) && first.shares_a_block(&without));
        let mut compacted = back.clone();
        compacted.compact();
        assert!(!compacted.shares_a_block(&back) && !first.shares_a_block(&compacted));
    }
}
