//! Building the domain graph of a program (Definition 14.1 of the analysis chapter).
//!
//! Vertices: one per argument position of every relation and every function symbol, one per
//! function symbol, one per constant. Edges, each read "the domain of A includes B":
//! - a constant `c` or a function term `f(...)` written at position A of a rule head: A → c,
//!   A → f (a function's argument positions are shared by all its occurrences, and the
//!   arguments of a head function term are linked the same way, recursively);
//! - a variable at position A of a head and at position B of a positive body atom: A → B;
//! - the game's dynamics: `true`¹ → `base`¹, `init`¹, `next`¹ and `does`ⁱ → `input`ⁱ,
//!   `legal`ⁱ (classic); a fluent relation's positions → the same-named function's positions
//!   (operations).
//!
//! A head variable bound only by a built-in or a count (`plus(X,Y,Z)`) marks its position
//! `computed`: integers the program need not mention can reach it.

use crate::program::{
    Atom, Effect, GroundTerm, Keyword, Literal, Model, Program, RelId, Sym, Term, TermId, VarId,
};
use std::collections::{BTreeMap, HashMap};

/// An argument position vertex: an index into [`DomainGraph::positions`].
pub type PosId = u32;
/// A function symbol vertex: an index into [`DomainGraph::functions`].
pub type FnId = u32;
/// A constant vertex: an index into [`DomainGraph::constants`].
pub type ConstId = u32;

/// Whose argument a position is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Owner {
    /// An argument of a relation.
    Relation(RelId),
    /// An argument of a function symbol (shared by all its occurrences).
    Function(FnId),
}

/// An argument position: the `index`-th argument (from 0) of its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The relation or function.
    pub owner: Owner,
    /// Which argument, from 0.
    pub index: usize,
}

/// A function symbol of some arity ≥ 1; `f/1` and `f/2` are two vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Function {
    /// Its name.
    pub name: Sym,
    /// Its number of arguments.
    pub arity: usize,
    /// The position of its first argument; the others follow.
    pub first: PosId,
}

/// The domain graph: vertices and the edges read "the domain of A includes B". Functions are
/// sorted by name then arity and constants in display order (integers by value, then names),
/// so every listing derived from the graph is deterministic.
#[derive(Clone, Debug, Default)]
pub struct DomainGraph {
    /// Every argument position: relations' (in `RelId` order) then functions'.
    pub positions: Vec<Position>,
    /// Function symbols, sorted by name then arity.
    pub functions: Vec<Function>,
    /// Constants, in display order.
    pub constants: Vec<Sym>,
    /// The position of each relation's first argument, by `RelId`.
    pub relation_first: Vec<PosId>,
    /// `includes[p]`: positions whose domains p's includes, sorted, without repetitions.
    pub includes: Vec<Vec<PosId>>,
    /// `constants_at[p]`: constants written at p, sorted.
    pub constants_at: Vec<Vec<ConstId>>,
    /// `functions_at[p]`: function symbols written at p, sorted.
    pub functions_at: Vec<Vec<FnId>>,
    /// `computed[p]`: whether a built-in or a count may compute p's values.
    pub computed: Vec<bool>,
    /// Each function's id, for lookups only (never iterated).
    function_index: HashMap<(Sym, usize), FnId>,
    /// Each constant's id, for lookups only (never iterated).
    constant_index: HashMap<Sym, ConstId>,
}

impl DomainGraph {
    /// The domain graph of `program`'s rules and operations.
    pub fn new(program: &Program) -> DomainGraph {
        let mut builder = Builder::new(program);
        for rule in &program.rules {
            builder.rule(&rule.head, &rule.body);
        }
        for op in &program.operations {
            builder.operation(op);
        }
        builder.dynamics();
        builder.finish()
    }

    /// The position of argument `index` (from 0) of relation `rel`.
    pub fn relation_position(&self, rel: RelId, index: usize) -> PosId {
        self.relation_first[rel as usize] + index as PosId
    }

    /// The positions of function `f`'s arguments.
    pub fn function_positions(&self, f: FnId) -> std::ops::Range<PosId> {
        let func = &self.functions[f as usize];
        func.first..func.first + func.arity as PosId
    }

    /// The function `name`/`arity`, if the program has it.
    pub fn function(&self, name: Sym, arity: usize) -> Option<FnId> {
        self.function_index.get(&(name, arity)).copied()
    }

    /// The constant `name`, if the program has it.
    pub fn constant(&self, name: Sym) -> Option<ConstId> {
        self.constant_index.get(&name).copied()
    }

    /// For each variable of `body`, the positions of the positive atoms it occurs at (inside
    /// function terms: the function's positions), in order of occurrence.
    pub fn body_positions(&self, body: &[Literal]) -> BTreeMap<VarId, Vec<PosId>> {
        let mut bound = BTreeMap::new();
        for literal in body {
            if let Literal::Pos(atom) = literal {
                for (i, t) in atom.args.iter().enumerate() {
                    self.body_term(t, self.relation_position(atom.rel, i), &mut bound);
                }
            }
        }
        bound
    }

    /// Records the positions of the variables of body term `t` at position `pos`.
    fn body_term(&self, t: &Term, pos: PosId, bound: &mut BTreeMap<VarId, Vec<PosId>>) {
        match t {
            Term::Var(v) => bound.entry(*v).or_default().push(pos),
            Term::Ground(_) => {}
            Term::Func(s, args) => {
                // A function the graph lacks has no positions to record (never happens for
                // the graph's own program).
                if let Some(f) = self.function(*s, args.len()) {
                    let first = self.functions[f as usize].first;
                    for (i, a) in args.iter().enumerate() {
                        self.body_term(a, first + i as PosId, bound);
                    }
                }
            }
        }
    }

    /// How many edges the graph has (position → position, constant or function).
    pub fn edge_count(&self) -> usize {
        let lists = [&self.includes, &self.constants_at, &self.functions_at];
        lists.iter().flat_map(|l| l.iter()).map(Vec::len).sum()
    }
}

/// The sort key of a constant's name: integers by value first, then names.
pub(super) fn constant_key(name: &str) -> (u8, i128, &str) {
    match name.parse::<i128>() {
        Ok(n) => (0, n, name),
        Err(_) => (1, 0, name),
    }
}

/// Accumulates vertices and edges, then sorts them.
struct Builder<'p> {
    program: &'p Program,
    graph: DomainGraph,
}

impl<'p> Builder<'p> {
    /// Every vertex of `program`: its relations, function symbols and constants.
    fn new(program: &'p Program) -> Builder<'p> {
        let mut functions: Vec<(Sym, usize)> = Vec::new();
        let mut constants: Vec<Sym> = Vec::new();
        for id in 0..program.terms.len() as TermId {
            match program.terms.term(id) {
                GroundTerm::Const(s) => constants.push(*s),
                GroundTerm::Func(s, args) => functions.push((*s, args.len())),
            }
        }
        fn collect(t: &Term, out: &mut Vec<(Sym, usize)>) {
            if let Term::Func(s, args) = t {
                out.push((*s, args.len()));
                args.iter().for_each(|a| collect(a, out));
            }
        }
        program.for_each_term(&mut |t| collect(t, &mut functions));
        let name = |s: Sym| program.symbols.name(s);
        functions.sort_by(|a, b| (name(a.0), a.1).cmp(&(name(b.0), b.1)));
        functions.dedup();
        constants.sort_by(|a, b| constant_key(name(*a)).cmp(&constant_key(name(*b))));
        constants.dedup();

        let mut graph = DomainGraph::default();
        for (r, rel) in program.relations.iter().enumerate() {
            graph.relation_first.push(graph.positions.len() as PosId);
            for index in 0..rel.arity {
                let owner = Owner::Relation(r as RelId);
                graph.positions.push(Position { owner, index });
            }
        }
        for (f, &(name, arity)) in functions.iter().enumerate() {
            let first = graph.positions.len() as PosId;
            for index in 0..arity {
                let owner = Owner::Function(f as FnId);
                graph.positions.push(Position { owner, index });
            }
            graph.functions.push(Function { name, arity, first });
            graph.function_index.insert((name, arity), f as FnId);
        }
        graph.constant_index = constants
            .iter()
            .enumerate()
            .map(|(c, &s)| (s, c as ConstId))
            .collect();
        graph.constants = constants;
        let n = graph.positions.len();
        graph.includes = vec![Vec::new(); n];
        graph.constants_at = vec![Vec::new(); n];
        graph.functions_at = vec![Vec::new(); n];
        graph.computed = vec![false; n];
        Builder { program, graph }
    }

    fn function(&self, name: Sym, arity: usize) -> FnId {
        match self.graph.function(name, arity) {
            Some(f) => f,
            None => panic!("internal error: function {name}/{arity} was not collected"),
        }
    }

    /// The edges of one rule `head :- body`.
    fn rule(&mut self, head: &Atom, body: &[Literal]) {
        let bound = self.graph.body_positions(body);
        for (i, t) in head.args.iter().enumerate() {
            let pos = self.graph.relation_position(head.rel, i);
            self.head_term(t, pos, &bound);
        }
    }

    /// The edges of term `t` written at head position `pos`.
    fn head_term(&mut self, t: &Term, pos: PosId, bound: &BTreeMap<VarId, Vec<PosId>>) {
        match t {
            Term::Var(v) => match bound.get(v) {
                Some(sources) => self.graph.includes[pos as usize].extend(sources),
                None => self.graph.computed[pos as usize] = true,
            },
            Term::Ground(id) => self.ground(*id, pos),
            Term::Func(s, args) => {
                let f = self.function(*s, args.len());
                self.graph.functions_at[pos as usize].push(f);
                let first = self.graph.functions[f as usize].first;
                for (i, a) in args.iter().enumerate() {
                    self.head_term(a, first + i as PosId, bound);
                }
            }
        }
    }

    /// The edges of ground term `id` written at head position `pos`.
    fn ground(&mut self, id: TermId, pos: PosId) {
        match self.program.terms.term(id) {
            GroundTerm::Const(s) => {
                if let Some(c) = self.graph.constant(*s) {
                    self.graph.constants_at[pos as usize].push(c);
                }
            }
            GroundTerm::Func(s, args) => {
                let f = self.function(*s, args.len());
                self.graph.functions_at[pos as usize].push(f);
                let first = self.graph.functions[f as usize].first;
                for (i, &a) in args.iter().enumerate() {
                    self.ground(a, first + i as PosId);
                }
            }
        }
    }

    /// An operation rule: its conditions and its action are the body (the action as the
    /// argument of `legal`), its effects the heads (a fluent `f(...)` fills `f`'s positions,
    /// a performed action is an argument of `legal`).
    fn operation(&mut self, op: &crate::program::Operation) {
        let legal = self.keyword_position(Keyword::Legal, 0);
        let mut bound = self.graph.body_positions(&op.conditions);
        if let Some(legal) = legal {
            self.graph.body_term(&op.action, legal, &mut bound);
        }
        for effect in &op.effects {
            match effect {
                Effect::Add(t) | Effect::Delete(t) => self.fluent(t, &bound),
                Effect::Perform(t) => {
                    if let Some(legal) = legal {
                        self.head_term(t, legal, &bound);
                    }
                }
            }
        }
    }

    /// The edges of fluent `t` added or deleted by an operation: `f(args)` fills the
    /// positions of function `f`, which the fluent relation `f` includes.
    fn fluent(&mut self, t: &Term, bound: &BTreeMap<VarId, Vec<PosId>>) {
        match t {
            Term::Func(s, args) => {
                let first = self.graph.functions[self.function(*s, args.len()) as usize].first;
                for (i, a) in args.iter().enumerate() {
                    self.head_term(a, first + i as PosId, bound);
                }
            }
            Term::Ground(id) => {
                if let GroundTerm::Func(s, args) = self.program.terms.term(*id) {
                    let first = self.graph.functions[self.function(*s, args.len()) as usize].first;
                    for (i, &a) in args.iter().enumerate() {
                        self.ground(a, first + i as PosId);
                    }
                }
            }
            Term::Var(_) => {}
        }
    }

    /// Argument `index` of the keyword relation `keyword`, if the program has it with GDL's arity.
    fn keyword_position(&self, keyword: Keyword, index: usize) -> Option<PosId> {
        let program = self.program;
        (0..program.relations.len() as RelId)
            .find(|&r| {
                program.keyword(r) == Some(keyword)
                    && program.relations[r as usize].arity == keyword.arity(program.model)
            })
            .map(|r| self.graph.relation_position(r, index))
    }

    /// The edges of the game's dynamics (GDL.md §2).
    fn dynamics(&mut self) {
        let program = self.program;
        match program.model {
            Model::Classic => {
                let links: [(Keyword, &[Keyword], usize); 2] = [
                    (
                        Keyword::True,
                        &[Keyword::Base, Keyword::Init, Keyword::Next],
                        1,
                    ),
                    (Keyword::Does, &[Keyword::Input, Keyword::Legal], 2),
                ];
                for (target, sources, arity) in links {
                    for index in 0..arity {
                        let Some(to) = self.keyword_position(target, index) else {
                            continue;
                        };
                        for &source in sources {
                            if let Some(from) = self.keyword_position(source, index) {
                                self.graph.includes[to as usize].push(from);
                            }
                        }
                    }
                }
            }
            Model::Operations => {
                // A fluent relation (one no rule defines) holds the terms of the same-named
                // function: `base(cell(1,1,b))`, `init(...)`, effects.
                let mut defined = vec![false; program.relations.len()];
                program
                    .rules
                    .iter()
                    .for_each(|r| defined[r.head.rel as usize] = true);
                for (r, rel) in program.relations.iter().enumerate() {
                    let Some(f) = self.graph.function(rel.name, rel.arity) else {
                        continue;
                    };
                    if defined[r] || program.keyword(r as RelId).is_some() {
                        continue;
                    }
                    let first = self.graph.functions[f as usize].first;
                    for i in 0..rel.arity {
                        let pos = self.graph.relation_position(r as RelId, i);
                        self.graph.includes[pos as usize].push(first + i as PosId);
                    }
                }
            }
        }
    }

    fn finish(mut self) -> DomainGraph {
        let lists = [
            &mut self.graph.includes,
            &mut self.graph.constants_at,
            &mut self.graph.functions_at,
        ];
        for list in lists {
            for edges in list.iter_mut() {
                edges.sort_unstable();
                edges.dedup();
            }
        }
        self.graph
    }
}
