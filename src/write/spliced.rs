//! A ground game's text kept between versions of a live session: the next version's text
//! is the previous one's with the removed lines cut out and the added ones rendered in
//! place, when the versions write the lines they share alike and in the same order.
//!
//! Rendering skirmish's 2.9 million lines takes most of a second; copying them is memory
//! bandwidth.

use super::ground::{rule_line, AtomText};
use crate::ground::{AtomId, GroundProgram};
use crate::grounding::GroundDelta;

/// A ground game's text (as [`super::ground::text`] writes it), line by line.
#[derive(Clone, Debug, Default)]
pub struct Text {
    bytes: Vec<u8>,
    /// Where each line starts, facts' then rules', and where the last ends.
    starts: Vec<usize>,
    /// The facts, by atom id (the first lines).
    facts: Vec<AtomId>,
    /// The previous version's buffers, reused for the next one's text: fresh memory costs a
    /// page fault every 4 KiB, as much as the copying.
    spare: (Vec<u8>, Vec<usize>),
}

impl Text {
    /// The text of `ground`, its atoms spelled by `atoms`.
    pub fn new(ground: &GroundProgram, atoms: &AtomText<'_>) -> Text {
        let mut text = Text::default();
        text.rebuild(ground, atoms);
        text
    }

    /// Makes this the text of `ground`, every line rendered afresh (into the spare buffers,
    /// so that the next splice has warm ones too).
    pub fn rebuild(&mut self, ground: &GroundProgram, atoms: &AtomText<'_>) {
        let all: Vec<usize> = (0..ground.rules.len()).collect();
        self.spliced(ground, atoms, &ground.facts, &all, &mut std::iter::empty());
    }

    /// Makes this the text of `ground`, the version after this text's one, when `delta` is
    /// what changed and the lines both versions have are written alike and in the same order.
    pub fn advance(&mut self, ground: &GroundProgram, atoms: &AtomText<'_>, delta: &GroundDelta) {
        let facts = std::mem::take(&mut self.facts);
        let removed = |i: &usize| match facts.get(*i) {
            Some(f) => delta.facts_removed.binary_search(f).is_ok(),
            None => delta
                .rules_removed
                .binary_search(&(i - facts.len()))
                .is_ok(),
        };
        let mut kept = (0..self.starts.len().saturating_sub(1)).filter(|i| !removed(i));
        let (facts, rules) = (&delta.facts_added, &delta.rules_added);
        self.spliced(ground, atoms, facts, rules, &mut kept);
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Makes this the text of `ground` with the facts `new_facts` (atom ids, sorted) and
    /// rules `new_rules` (indices, sorted) rendered, and every other line copied from this
    /// text's lines `kept`, in order (runs of consecutive lines at once).
    fn spliced(
        &mut self,
        ground: &GroundProgram,
        atoms: &AtomText<'_>,
        new_facts: &[AtomId],
        new_rules: &[usize],
        kept: &mut dyn Iterator<Item = usize>,
    ) {
        let names = names(ground, atoms, new_facts, new_rules);
        let (mut bytes, mut starts) = std::mem::take(&mut self.spare);
        bytes.clear();
        starts.clear();
        let mut text = Text {
            bytes,
            starts,
            facts: ground.facts.clone(),
            spare: (Vec::new(), Vec::new()),
        };
        let mut run = None;
        let mut line = String::new();
        let mut new_rules = new_rules.iter().peekable();
        for i in 0..ground.facts.len() + ground.rules.len() {
            line.clear();
            match ground.facts.get(i) {
                Some(f) if new_facts.binary_search(f).is_ok() => {
                    line.push_str(&names[*f as usize]);
                    line.push('\n');
                }
                Some(_) => {}
                None => {
                    let r = i - ground.facts.len();
                    if new_rules.next_if_eq(&&r).is_some() {
                        rule_line(ground, atoms, &names, ground.rules.get(r), &mut line);
                    }
                }
            }
            if line.is_empty() {
                let j = kept.next().expect("a kept line for every line not new");
                run = match run {
                    Some((first, last)) if j == last + 1 => Some((first, j)),
                    _ => {
                        text.copy(self, run);
                        Some((j, j))
                    }
                };
            } else {
                text.copy(self, run.take());
                text.push(line.as_bytes());
            }
        }
        text.copy(self, run);
        text.starts.push(text.bytes.len());
        let previous = std::mem::replace(self, text);
        self.spare = (previous.bytes, previous.starts);
    }

    /// Appends the lines `run` (first and last) of `from`.
    fn copy(&mut self, from: &Text, run: Option<(usize, usize)>) {
        let Some((first, last)) = run else {
            return;
        };
        let (start, end) = (from.starts[first], from.starts[last + 1]);
        let base = self.bytes.len();
        (self.starts).extend(from.starts[first..=last].iter().map(|s| s - start + base));
        self.bytes.extend_from_slice(&from.bytes[start..end]);
    }

    /// Appends a line.
    fn push(&mut self, line: &[u8]) {
        self.starts.push(self.bytes.len());
        self.bytes.extend_from_slice(line);
    }
}

/// The text of the atoms the facts `facts` and rules `rules` of `ground` name, by id (the
/// others left empty).
fn names(
    ground: &GroundProgram,
    atoms: &AtomText<'_>,
    facts: &[AtomId],
    rules: &[usize],
) -> Vec<String> {
    let mut names = vec![String::new(); ground.atoms.len()];
    let mut name = |a: AtomId| {
        let name = &mut names[a as usize];
        if name.is_empty() {
            let (rel, args) = &ground.atoms[a as usize];
            atoms.atom(*rel, args, name);
        }
    };
    facts.iter().for_each(|&f| name(f));
    for &r in rules {
        let rule = ground.rules.get(r);
        name(rule.head);
        rule.body.iter().for_each(|&(_, a)| name(a));
    }
    names
}
