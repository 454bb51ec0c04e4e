//! The live engine's token space: functor tokens and relation ids that stay the same across
//! versions of a game.
//!
//! Every version of an edited game is loaded afresh, with its own interner and
//! [`Encoding`]; the dataflow's rows must not change meaning between versions. A functor is
//! identified by its name and arity, a relation by its name and arity; integers keep their
//! tokens. A [`Mapping`] translates one version's ids into the space and back.

use crate::engine::pattern::{Item, Row};
use crate::hash::FastMap;
use crate::program::encoding::{int_value, Digits, Encoding, Token};
use crate::program::{Program, RelId};
use std::sync::Arc;

/// Stable ids for every functor and relation seen so far.
///
/// Looked up by name, borrowed: each version maps all its names, and making a key for each
/// (a string formatted and hashed) was a twentieth of a connect four goal edit.
#[derive(Clone, Debug, Default)]
pub struct Space {
    /// The space token of each functor name, by arity.
    tokens: ByName<u32, Token>,
    /// Each space token's arity.
    arities: Vec<u32>,
    /// The space id of each relation name, by arity and whether it holds the certain atoms.
    relations: ByName<(usize, bool), RelId>,
    /// How many space relations there are.
    relation_count: RelId,
}

/// Ids by name, then by what else tells apart things of one name (an arity, say).
type ByName<W, I> = FastMap<Box<str>, Vec<(W, I)>>;

/// The id `map` has for `name` and `what`, or `next` (then remembered for them).
fn id_of<W: PartialEq, I: Copy>(map: &mut ByName<W, I>, name: &str, what: W, next: I) -> I {
    if let Some(ids) = map.get_mut(name) {
        if let Some((_, id)) = ids.iter().find(|(w, _)| *w == what) {
            return *id;
        }
        ids.push((what, next));
    } else {
        map.insert(name.into(), vec![(what, next)]);
    }
    next
}

/// One version's ids translated to the space, and back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mapping {
    /// Space token of each of the version's functor tokens.
    tokens: Vec<Token>,
    /// The version's token of each space token (`Token::MAX`: not in this version).
    back: Vec<Token>,
    /// Space id of each of the version's relations, then of each one's certain atoms (the
    /// [`certain_id`](crate::engine::plan::certain_id)s).
    relations: Vec<RelId>,
    /// The version's relation (or certain id) of each space relation (`RelId::MAX`: none).
    relations_back: Vec<RelId>,
}

impl Space {
    /// Maps the ids of `program` (encoded by `encoding`) into the space, adding new ones.
    pub fn map(&mut self, program: &Program, encoding: &Encoding) -> Mapping {
        let functors = encoding.arities();
        let mut tokens = Vec::with_capacity(functors.len());
        let mut digits = Digits::default();
        for (t, &arity) in functors.iter().enumerate() {
            let name = encoding.spell(t as Token, &mut digits);
            let next = self.arities.len() as Token;
            let id = id_of(&mut self.tokens, name, arity, next);
            if id == next {
                self.arities.push(arity);
            }
            tokens.push(id);
        }
        let mut back = vec![Token::MAX; self.arities.len()];
        for (t, &id) in tokens.iter().enumerate() {
            back[id as usize] = t as Token;
        }
        let mut relations = Vec::with_capacity(2 * program.relations.len());
        // A relation's certain atoms are a relation of their own.
        for certain in [false, true] {
            for (r, relation) in program.relations.iter().enumerate() {
                let name = program.relation_name(r as RelId);
                let next = self.relation_count;
                let id = id_of(&mut self.relations, name, (relation.arity, certain), next);
                self.relation_count += (id == next) as RelId;
                relations.push(id);
            }
        }
        let mut relations_back = vec![RelId::MAX; self.relation_count as usize];
        for (r, &id) in relations.iter().enumerate() {
            relations_back[id as usize] = r as RelId;
        }
        Mapping {
            tokens,
            back,
            relations,
            relations_back,
        }
    }

    /// The arities of the space's functor tokens.
    pub fn arities(&self) -> Arc<Vec<u32>> {
        Arc::new(self.arities.clone())
    }
}

/// Whether the ids `back` gives the space ids `ids` (absent ones, `u32::MAX`, skipped)
/// increase along `ids`.
fn increasing(ids: &[u32], back: &[u32]) -> bool {
    let mut present = (ids.iter())
        .filter_map(|&s| back.get(s as usize).copied())
        .filter(|&id| id != u32::MAX);
    let mut last = None;
    present.all(|id| {
        let ok = last.is_none_or(|l| l < id);
        last = Some(id);
        ok
    })
}

impl Mapping {
    /// The space token of the version's `token`.
    fn token(&self, token: Token) -> Token {
        match int_value(token) {
            Some(_) => token,
            None => self
                .tokens
                .get(token as usize)
                .copied()
                .unwrap_or(Token::MAX),
        }
    }

    /// Puts the version's `pattern` in space tokens.
    pub fn translate(&self, pattern: &mut [Item]) {
        for item in pattern {
            if let Item::Tok(t) = item {
                *t = self.token(*t);
            }
        }
    }

    /// A hash of the version's atom `rel(row)` that is the same in every version (its relation
    /// and tokens in the space): what compares atoms across versions.
    pub fn atom_key(&self, rel: RelId, row: &[Token]) -> u64 {
        use std::hash::{BuildHasher, Hasher};
        let mut h = crate::hash::FastBuild::default().build_hasher();
        h.write_u32(self.relation(rel));
        row.iter().for_each(|&t| h.write_u32(self.token(t)));
        h.finish()
    }

    /// The version's `row` in space tokens.
    pub fn row(&self, row: &[Token]) -> Row {
        row.iter().map(|&t| self.token(t)).collect()
    }

    /// Whether the ids this version shares with `previous` (functor tokens and relations
    /// both have) are in the same relative order in both: then sorting atoms or rules by id
    /// orders the ones both versions have alike.
    pub fn keeps_order_of(&self, previous: &Mapping) -> bool {
        increasing(&previous.tokens, &self.back)
            && increasing(&previous.relations, &self.relations_back)
    }

    /// The space id of the version's relation `rel`.
    pub fn relation(&self, rel: RelId) -> RelId {
        self.relations[rel as usize]
    }

    /// The version's relation of space relation `rel`, if it has it (certain atoms are no
    /// relation of the version: see [`Mapping::is_certain`]).
    pub fn relation_back(&self, rel: RelId) -> Option<RelId> {
        let r = *self.relations_back.get(rel as usize)?;
        (r != RelId::MAX && !self.is_certain(rel)).then_some(r)
    }

    /// Whether space relation `rel` holds the certain atoms of one of the version's relations.
    pub fn is_certain(&self, rel: RelId) -> bool {
        let r = self.relations_back.get(rel as usize).copied();
        r.is_some_and(|r| r != RelId::MAX && r as usize >= self.relations.len() / 2)
    }

    /// `row` (space tokens) in the version's tokens; `None` if it uses a functor the version
    /// does not have.
    pub fn row_back(&self, row: &[Token]) -> Option<Row> {
        row.iter()
            .map(|&t| match int_value(t) {
                Some(_) => Some(t),
                None => self
                    .back
                    .get(t as usize)
                    .copied()
                    .filter(|&b| b != Token::MAX),
            })
            .collect()
    }
}
