//! Ground instances, packed: one token arena per worker instead of a heap object per instance.
//!
//! Large games have millions of instances (skirmish: 3 million); as structs with a vector of
//! literals, each a small vector of tokens, they cost ~300 bytes each and dominated peak
//! memory. Packed, an instance is its tokens and a few counts:
//! `rule, head_rel, head_len, head…, literals, then per literal rel·2+negated, len, args…`.
//! Arenas are closed at [`ARENA_TOKENS`] (the first few earlier, doubling up to it), so they
//! are also the parts, of about equal size, that the ground stage's threads share.

use crate::program::encoding::Token;
use crate::program::RelId;

/// Tokens past which an arena is closed: the next instance starts a new one. Parts this size
/// (4 MiB) let threads share the work evenly (a worker's whole arena as one part left one
/// thread idle for 0.3 s of alexChess__v1's rule building).
const ARENA_TOKENS: usize = 1 << 20;

/// Tokens at which the first arena closes; each next one closes at twice its predecessor's
/// size, up to [`ARENA_TOKENS`]. Small games keep small arenas, and so do a live session's
/// edits, which instantiate a few rules each: an 80 KB first arena per edit had `malloc`
/// merge the heap's free chunks (1.3 % of connect four's goal edits).
const FIRST_ARENA_TOKENS: usize = 1 << 8;

/// Room an arena has past its closing size, for the instance that crosses it: as much again,
/// up to this. An arena is allocated whole, never grown by copying (unless one instance is
/// longer than that room): growing them was 7 % of ruleDepthExponential's time, in
/// reallocations whose `malloc` sorted the heap's free chunks.
const ARENA_SLACK: usize = 1 << 12;

/// Instances of rules with dynamic heads, packed (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Instances {
    /// The arenas, each a sequence of whole instances.
    chunks: Vec<Vec<Token>>,
    /// How many instances in all.
    count: usize,
    /// The size at which the last arena closes.
    closing: usize,
}

/// One instance, borrowed from [`Instances`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instance<'a> {
    /// The rule of the program.
    pub rule: usize,
    /// The head relation.
    pub head_rel: RelId,
    /// The head's arguments.
    pub head: &'a [Token],
    /// The packed body literals.
    body: &'a [Token],
}

impl Instances {
    /// Starts an instance of program rule `rule` with head `head_rel(head)` and `literals`
    /// body literals, to be added with [`Instances::literal`].
    pub fn start(&mut self, rule: usize, head_rel: RelId, head: &[Token], literals: usize) {
        self.start_with(rule, head_rel, literals, |arena| {
            arena.extend_from_slice(head)
        });
    }

    /// [`Instances::start`] with the head's arguments written by `head`, straight into the
    /// arena (no row to build and copy).
    pub fn start_with(
        &mut self,
        rule: usize,
        head_rel: RelId,
        literals: usize,
        head: impl FnOnce(&mut Vec<Token>),
    ) {
        if self.chunks.last().is_none_or(|c| c.len() >= self.closing) {
            self.closing = (2 * self.closing).clamp(FIRST_ARENA_TOKENS, ARENA_TOKENS);
            self.chunks.push(Vec::with_capacity(
                self.closing + self.closing.min(ARENA_SLACK),
            ));
        }
        let arena = self.chunks.last_mut().expect("a chunk");
        arena.extend([rule as Token, head_rel]);
        written(arena, head);
        arena.push(literals as Token);
        self.count += 1;
    }

    /// Adds a body literal to the instance started last.
    pub fn literal(&mut self, negated: bool, rel: RelId, args: &[Token]) {
        self.literal_with(negated, rel, |arena| arena.extend_from_slice(args));
    }

    /// [`Instances::literal`] with the arguments written by `args`, straight into the arena.
    pub fn literal_with(&mut self, negated: bool, rel: RelId, args: impl FnOnce(&mut Vec<Token>)) {
        let arena = self.chunks.last_mut().expect("an instance was started");
        arena.push(rel << 1 | negated as Token);
        written(arena, args);
    }

    /// Takes over the instances of `other`.
    pub fn append(&mut self, other: Instances) {
        self.count += other.count;
        self.chunks
            .extend(other.chunks.into_iter().filter(|c| !c.is_empty()));
    }

    /// The arenas and the count of instances in them: the instances as plain data, to send
    /// to another process ([`Instances::from_arenas`] takes them back).
    pub fn into_arenas(self) -> (Vec<Vec<Token>>, usize) {
        (self.chunks, self.count)
    }

    /// The instances of `arenas` (as [`Instances::into_arenas`] gives them), `count` in all.
    pub fn from_arenas(arenas: Vec<Vec<Token>>, count: usize) -> Instances {
        Instances {
            chunks: arenas,
            count,
            // The next instance, if any, opens an arena of its own.
            closing: 0,
        }
    }

    /// How many instances there are.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The instances, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = Instance<'_>> + '_ {
        (0..self.part_count()).flat_map(|p| self.part(p))
    }

    /// How many parts the instances come in (see [`Instances::part`]).
    pub fn part_count(&self) -> usize {
        self.chunks.len()
    }

    /// The instances of part `p`, one arena: parts of about equal size, to process in
    /// parallel.
    pub fn part(&self, p: usize) -> impl Iterator<Item = Instance<'_>> + '_ {
        let mut rest = &self.chunks[p][..];
        std::iter::from_fn(move || {
            let (&[rule, head_rel, head_len], tail) = rest.split_first_chunk::<3>()?;
            let (head, tail) = tail.split_at(head_len as usize);
            let (&literals, mut tail) = tail.split_first()?;
            let body_start = tail;
            for _ in 0..literals {
                tail = &tail[2 + tail[1] as usize..];
            }
            let body = &body_start[..body_start.len() - tail.len()];
            rest = tail;
            Some(Instance {
                rule: rule as usize,
                head_rel,
                head,
                body,
            })
        })
    }
}

/// Appends to `arena` the length of what `write` appends, then that.
fn written(arena: &mut Vec<Token>, write: impl FnOnce(&mut Vec<Token>)) {
    let at = arena.len();
    arena.push(0);
    write(arena);
    arena[at] = (arena.len() - at - 1) as Token;
}

impl<'a> Instance<'a> {
    /// The body literals, in the rule's order: (negated, relation, arguments).
    pub fn body(&self) -> impl Iterator<Item = (bool, RelId, &'a [Token])> + 'a {
        let mut rest = self.body;
        std::iter::from_fn(move || {
            let (&[tag, len], tail) = rest.split_first_chunk::<2>()?;
            let (args, tail) = tail.split_at(len as usize);
            rest = tail;
            Some((tag & 1 == 1, tag >> 1, args))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_come_back_as_they_were_packed() {
        let mut a = Instances::default();
        a.start(3, 7, &[1, 2], 2);
        a.literal(true, 5, &[9]);
        a.literal(false, 6, &[]);
        a.start(0, 1, &[], 0);
        let mut b = Instances::default();
        b.start(1, 2, &[4, 4, 4], 1);
        b.literal(false, 0x7fff_ffff, &[8, 8]);
        a.append(b);
        a.append(Instances::default());
        assert_eq!(a.len(), 3);
        type Literal = (bool, RelId, Vec<Token>);
        let all: Vec<(usize, RelId, Vec<Token>, Vec<Literal>)> = a
            .iter()
            .map(|i| {
                let body = i.body().map(|(n, r, args)| (n, r, args.to_vec())).collect();
                (i.rule, i.head_rel, i.head.to_vec(), body)
            })
            .collect();
        assert_eq!(
            all,
            vec![
                (
                    3,
                    7,
                    vec![1, 2],
                    vec![(true, 5, vec![9]), (false, 6, vec![])]
                ),
                (0, 1, vec![], vec![]),
                (1, 2, vec![4, 4, 4], vec![(false, 0x7fff_ffff, vec![8, 8])]),
            ]
        );
    }

    /// Instances past an arena's size go to new arenas, each instance whole in one: parts
    /// of about the arena's size, every instance in exactly one, in order.
    #[test]
    fn arenas_close_at_their_size_and_keep_instances_whole() {
        let mut a = Instances::default();
        let n = 3 * ARENA_TOKENS / 10;
        for i in 0..n {
            a.start(i, 1, &[i as Token, 7], 1);
            a.literal(false, 2, &[i as Token, 1, 2]);
        }
        assert!(a.part_count() >= 3, "{}", a.part_count());
        // An instance is 11 tokens: 3 + 2 of head, 1 count, 2 + 3 for the literal.
        for p in 0..a.part_count() {
            let tokens = 11 * a.part(p).count();
            assert!(tokens < ARENA_TOKENS + 11, "part {p}: {tokens}");
        }
        let rules: Vec<usize> = a.iter().map(|i| i.rule).collect();
        assert_eq!(rules, (0..n).collect::<Vec<_>>());
        assert!(a.iter().all(|i| i.head == [i.rule as Token, 7]
            && i.body().eq([(false, 2, &[i.rule as Token, 1, 2][..])])));
    }

    /// An instance longer than the first arena with its room (the arena grows for it) comes
    /// back whole, and so do the instances around it.
    #[test]
    fn an_instance_longer_than_an_arena_comes_back_whole() {
        let long: Vec<Token> = (0..3 * FIRST_ARENA_TOKENS as Token).collect();
        let mut a = Instances::default();
        a.start(0, 1, &[5], 0);
        a.start(1, 1, &long, 1);
        a.literal(true, 2, &long);
        a.start(2, 1, &[6], 0);
        let got: Vec<(usize, usize, usize)> = (a.iter())
            .map(|i| (i.rule, i.head.len(), i.body().map(|l| l.2.len()).sum()))
            .collect();
        assert_eq!(got, [(0, 1, 0), (1, long.len(), long.len()), (2, 1, 0)]);
        assert!(a.iter().nth(1).is_some_and(|i| i.head == long));
    }
}
