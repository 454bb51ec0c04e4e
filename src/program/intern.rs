//! Interning: every name and every ground term gets a `u32`.

use crate::hash::FastMap;

/// An interned name (constant, function or relation symbol).
pub type Sym = u32;
/// An interned ground term: a constant or a function applied to ground terms.
pub type TermId = u32;

/// The name table: `Sym` ↔ text, and each name's spelling.
///
/// A name is identified by its text (folded to lower case in KIF, where `cellHolds` and
/// `cellholds` are one name) and written as first spelled, so that outputs keep the game's
/// own names (GDL.md §3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Symbols {
    names: Vec<Box<str>>,
    ids: FastMap<Box<str>, Sym>,
    /// The spellings that differ from the text, by symbol.
    spellings: FastMap<Sym, Box<str>>,
}

impl Symbols {
    /// The id of `name`, adding it if new; spelled as its text.
    pub fn intern(&mut self, name: &str) -> Sym {
        self.intern_spelled(name, name)
    }

    /// The id of `name`, adding it if new with the spelling `spelling` (which a name seen
    /// before keeps from its first occurrence).
    pub fn intern_spelled(&mut self, name: &str, spelling: &str) -> Sym {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as Sym;
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        if spelling != name {
            self.spellings.insert(id, spelling.into());
        }
        id
    }

    /// How `sym` is written in the game: the text every output gives it.
    pub fn spelling(&self, sym: Sym) -> &str {
        match self.spellings.get(&sym) {
            Some(spelling) => spelling,
            None => self.name(sym),
        }
    }

    /// The id of `name` if it was interned.
    pub fn get(&self, name: &str) -> Option<Sym> {
        self.ids.get(name).copied()
    }

    /// The text that identifies `sym` (folded in KIF): what keywords and built-ins are
    /// recognised by.
    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym as usize]
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no name was interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// The shape of one ground term: a constant, or a function of ground terms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GroundTerm {
    /// A constant symbol.
    Const(Sym),
    /// `f(t1, ..., tn)`, n ≥ 1.
    Func(Sym, Box<[TermId]>),
}

/// Hash-consed ground terms: equal terms get equal ids, so term equality is `u32` equality.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    entries: Vec<GroundTerm>,
    ids: FastMap<GroundTerm, TermId>,
}

impl Terms {
    /// The id of `term`, adding it if new.
    pub fn intern(&mut self, term: GroundTerm) -> TermId {
        if let Some(&id) = self.ids.get(&term) {
            return id;
        }
        let id = self.entries.len() as TermId;
        self.entries.push(term.clone());
        self.ids.insert(term, id);
        id
    }

    /// The id of constant `sym`, adding it if new.
    pub fn constant(&mut self, sym: Sym) -> TermId {
        self.intern(GroundTerm::Const(sym))
    }

    /// The id of `term` if it was interned.
    pub fn get(&self, term: &GroundTerm) -> Option<TermId> {
        self.ids.get(term).copied()
    }

    /// The shape of `id`.
    pub fn term(&self, id: TermId) -> &GroundTerm {
        &self.entries[id as usize]
    }

    /// How many terms there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no term was interned.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
