//! The least fixpoint of the domain graph: each position's domain, and its size.
//!
//! A position's domain is the constants and function symbols it reaches along "includes"
//! edges, a function symbol `f` standing for every term `f(t1, …, tn)` with each `ti` in the
//! domain of `f`'s i-th position. Reachability is computed once per strongly connected
//! component (components in dependency order), so the fixpoint costs one pass over the graph.
//! Sizes are counted, never enumerated: a function's size is the product of its positions'
//! sizes, and a function that can nest in itself (a cycle through non-empty functions) makes
//! every domain containing it unbounded.

use super::graph::{ConstId, DomainGraph, FnId, PosId};
use super::Size;
use crate::program::Program;

/// What a position's domain is built from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    /// Constants in the domain, sorted.
    pub constants: Vec<ConstId>,
    /// Functions whose terms are in the domain, sorted; only functions with at least one
    /// ground term are kept.
    pub functions: Vec<FnId>,
    /// Whether built-ins or counts may compute values here (integers the program need not
    /// mention).
    pub computed: bool,
}

/// The domains of every position of a program's domain graph.
#[derive(Clone, Debug)]
pub struct Domains {
    /// The graph they are computed from.
    pub graph: DomainGraph,
    /// Index into `reaches` of each position (positions of one component share it).
    reach_of: Vec<u32>,
    reaches: Vec<Reach>,
    /// The number of ground terms of each function.
    function_sizes: Vec<Size>,
    /// The size of each position's domain.
    sizes: Vec<Size>,
}

impl Domains {
    /// The domains of `program`'s domain graph.
    pub fn new(program: &Program) -> Domains {
        Domains::of(DomainGraph::new(program))
    }

    /// The domains of `graph`.
    pub fn of(graph: DomainGraph) -> Domains {
        let (reach_of, mut reaches) = reachability(&graph);
        let productive = productive_functions(&graph, &reach_of, &reaches);
        for reach in &mut reaches {
            reach.functions.retain(|&f| productive[f as usize]);
        }
        let mut domains = Domains {
            function_sizes: vec![Size::Finite(0); graph.functions.len()],
            sizes: Vec::new(),
            graph,
            reach_of,
            reaches,
        };
        domains.count_functions();
        domains.sizes = (0..domains.graph.positions.len() as PosId)
            .map(|p| domains.count_position(p))
            .collect();
        domains
    }

    /// What position `pos`'s domain is built from.
    pub fn reach(&self, pos: PosId) -> &Reach {
        &self.reaches[self.reach_of[pos as usize] as usize]
    }

    /// The number of values at position `pos`.
    pub fn size(&self, pos: PosId) -> Size {
        self.sizes[pos as usize]
    }

    /// The number of ground terms of function `f` (0 when none is ground).
    pub fn function_size(&self, f: FnId) -> Size {
        self.function_sizes[f as usize]
    }

    /// The number of argument tuples the domains of `positions` allow: their product.
    pub fn product(&self, positions: impl IntoIterator<Item = PosId>) -> Size {
        Size::product(positions.into_iter().map(|p| self.size(p)))
    }

    /// The function sizes, in dependency order of the function graph (f → g when a term of
    /// g can be an argument of f); functions on a cycle are unbounded.
    fn count_functions(&mut self) {
        let n = self.graph.functions.len();
        let edges: Vec<Vec<FnId>> = (0..n as FnId)
            .map(|f| {
                let mut out: Vec<FnId> = self
                    .graph
                    .function_positions(f)
                    .flat_map(|p| self.reach(p).functions.iter().copied())
                    .collect();
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        let component = crate::graph::components(n, |v, i| edges[v].get(i).map(|&w| w as usize));
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&f| component[f]);
        let mut members = vec![0usize; n];
        component.iter().for_each(|&c| members[c as usize] += 1);
        for f in order {
            let cyclic = members[component[f] as usize] > 1 || edges[f].contains(&(f as FnId));
            self.function_sizes[f] = if cyclic {
                Size::Unbounded(super::Unbounded::Nests(f as FnId))
            } else {
                let positions = self.graph.function_positions(f as FnId);
                Size::product(positions.map(|p| self.count_position(p)))
            };
        }
    }

    /// The size of `pos` from the sizes of the functions it reaches.
    fn count_position(&self, pos: PosId) -> Size {
        let reach = self.reach(pos);
        if reach.computed {
            return Size::Unbounded(super::Unbounded::Computed);
        }
        let constants = Size::Finite(reach.constants.len() as u128);
        let functions = reach
            .functions
            .iter()
            .map(|&f| self.function_sizes[f as usize]);
        Size::sum(std::iter::once(constants).chain(functions))
    }
}

/// The reach of every component of the "includes" graph, and each position's component.
fn reachability(graph: &DomainGraph) -> (Vec<u32>, Vec<Reach>) {
    let n = graph.positions.len();
    let component =
        crate::graph::components(n, |v, i| graph.includes[v].get(i).map(|&w| w as usize));
    let count = component.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut members = vec![Vec::new(); count];
    for (p, &c) in component.iter().enumerate() {
        members[c as usize].push(p);
    }
    // Every component reaches only components with smaller ids: ascending ids are
    // dependency order.
    let mut reaches: Vec<Reach> = Vec::with_capacity(count);
    for (c, ps) in members.iter().enumerate() {
        let mut reach = Reach::default();
        for &p in ps {
            reach.constants.extend(&graph.constants_at[p]);
            reach.functions.extend(&graph.functions_at[p]);
            reach.computed |= graph.computed[p];
            for &q in &graph.includes[p] {
                let d = component[q as usize] as usize;
                if d != c {
                    let other = &reaches[d];
                    reach.constants.extend(&other.constants);
                    reach.functions.extend(&other.functions);
                    reach.computed |= other.computed;
                }
            }
        }
        reach.constants.sort_unstable();
        reach.constants.dedup();
        reach.functions.sort_unstable();
        reach.functions.dedup();
        reaches.push(reach);
    }
    (component, reaches)
}

/// Which functions have at least one ground term: all their positions are non-empty (least
/// fixpoint, so that `f` reachable only inside `f(...)` has none).
fn productive_functions(graph: &DomainGraph, reach_of: &[u32], reaches: &[Reach]) -> Vec<bool> {
    let mut productive = vec![false; graph.functions.len()];
    let non_empty = |p: PosId, productive: &[bool]| {
        let r = &reaches[reach_of[p as usize] as usize];
        r.computed || !r.constants.is_empty() || r.functions.iter().any(|&f| productive[f as usize])
    };
    let mut changed = true;
    while changed {
        changed = false;
        for f in 0..graph.functions.len() {
            if !productive[f]
                && graph
                    .function_positions(f as FnId)
                    .all(|p| non_empty(p, &productive))
            {
                productive[f] = true;
                changed = true;
            }
        }
    }
    productive
}
