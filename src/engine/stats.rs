//! Statistics for the planner: how many rows a literal yields per binding of its bound
//! variables.
//!
//! Relations whose rows are known when a plan is made (the exactly computed static relations,
//! or facts) give exact numbers: rows matching the literal's constants, divided by the number
//! of distinct values of the bound variables among them. Other relations get a fixed guess,
//! spread over the literal's positions, so that a literal with more bound positions is
//! expected to be more selective. The numbers only rank join orders; they need not be right.

use super::pattern::{variables, Item, Pattern, Ranges, Row};
use crate::hash::{FastMap, FastSet};
use crate::program::encoding::token_arity;
use crate::program::{RelId, VarId};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The size guessed for a relation whose rows are not known.
const GUESSED_SIZE: f64 = 1000.0;

/// A literal with a key, canonical: relation, pattern and key variables.
type Literal = (RelId, Pattern, Vec<VarId>);

/// A rule body's positive literals and, for each, whether the planner prefers to start from
/// it (see `plan::order`).
pub type Body = (Vec<(RelId, Pattern)>, Vec<bool>);

/// Known rows by relation, and what the planner computed from them so far.
pub struct Stats {
    rows: BTreeMap<RelId, Vec<Row>>,
    arities: Arc<Vec<u32>>,
    /// Fan-outs by relation, canonical pattern and key (see [`canonical`]).
    cache: RefCell<FastMap<Literal, f64>>,
    /// Join orders chosen by body, when remembered ([`Stats::remembering_orders`]).
    orders: Option<RefCell<FastMap<Body, Vec<usize>>>>,
}

impl Stats {
    /// Statistics over `rows` (each relation's complete set of rows); `arities` of functor
    /// tokens, to match rows against patterns.
    pub fn new(rows: BTreeMap<RelId, Vec<Row>>, arities: Arc<Vec<u32>>) -> Stats {
        Stats {
            rows,
            arities,
            cache: RefCell::default(),
            orders: None,
        }
    }

    /// These statistics, remembering the join orders chosen with them: an order is a
    /// function of the body and the rows, so planning the same body again (a live session's
    /// next version, with the same facts) does not search again. (A full grounding plans
    /// each body once, and remembering would only cost it.)
    pub fn remembering_orders(self) -> Stats {
        Stats {
            orders: Some(RefCell::default()),
            ..self
        }
    }

    /// The relations whose rows differ between these statistics and `rows`, if `arities`
    /// are theirs (`None`: other functor tokens, so that no row means the same).
    pub fn changed(
        &self,
        rows: &BTreeMap<RelId, Vec<Row>>,
        arities: &[u32],
    ) -> Option<FastSet<RelId>> {
        if self.arities[..] != *arities {
            return None;
        }
        let differs = |rel: &RelId, mine: &Vec<Row>, theirs: &BTreeMap<RelId, Vec<Row>>| {
            theirs.get(rel) != Some(mine)
        };
        let gone = (self.rows.iter()).filter(|(rel, mine)| differs(rel, mine, rows));
        let came = (rows.iter()).filter(|(rel, theirs)| differs(rel, theirs, &self.rows));
        Some(gone.chain(came).map(|(rel, _)| *rel).collect())
    }

    /// Whether these statistics are over `rows` and `arities`: then they (and the orders
    /// they remember) hold for a program with those facts.
    pub fn over(&self, rows: &BTreeMap<RelId, Vec<Row>>, arities: &[u32]) -> bool {
        self.rows == *rows && self.arities[..] == *arities
    }

    /// The join order of `body`: remembered, or chosen by `choose` (and remembered if these
    /// statistics remember orders).
    pub fn order(&self, body: Body, choose: impl FnOnce(&Body) -> Vec<usize>) -> Vec<usize> {
        let Some(orders) = &self.orders else {
            return choose(&body);
        };
        if let Some(order) = orders.borrow().get(&body) {
            return order.clone();
        }
        let order = choose(&body);
        orders.borrow_mut().insert(body, order.clone());
        order
    }

    /// Whether the rows of `rel` are known (possibly none).
    pub fn knows(&self, rel: RelId) -> bool {
        self.rows.contains_key(&rel)
    }

    /// Whether `rel` has known rows, and at least one.
    pub fn has_rows(&self, rel: RelId) -> bool {
        self.rows.get(&rel).is_some_and(|rows| !rows.is_empty())
    }

    /// Whether the rows of `rel` are known and one of them matches `pattern`.
    pub fn matches(&self, rel: RelId, pattern: &[Item]) -> bool {
        self.rows.contains_key(&rel) && self.fanout(rel, pattern, &[]) > 0.0
    }

    /// The known rows, given back.
    pub fn into_rows(self) -> BTreeMap<RelId, Vec<Row>> {
        self.rows
    }

    /// The fan-out of a literal over a relation of `size` rows whose rows are not known: each
    /// position (variable or constant, not counting functors) equally selective.
    pub fn fanout_of_size(&self, size: f64, pattern: &[Item], key: &[VarId]) -> f64 {
        let vars = variables(pattern);
        let constants = pattern
            .iter()
            .filter(|i| match **i {
                Item::Tok(t) => token_arity(t, &self.arities) == 0,
                Item::Var(_) => false,
            })
            .count();
        let new = vars.iter().filter(|v| !key.contains(v)).count();
        let positions = (vars.len() + constants).max(1);
        size.powf(new as f64 / positions as f64)
    }

    /// How many rows of `rel` match `pattern` per value of the variables `key` (all matching
    /// rows when `key` is empty): the factor by which joining this literal multiplies the
    /// bindings.
    pub fn fanout(&self, rel: RelId, pattern: &[Item], key: &[VarId]) -> f64 {
        let Some(rows) = self.rows.get(&rel) else {
            return self.fanout_of_size(GUESSED_SIZE, pattern, key);
        };
        let (canon_pattern, canon_key) = canonical(pattern, key);
        let id = (rel, canon_pattern, canon_key);
        if let Some(&f) = self.cache.borrow().get(&id) {
            return f;
        }
        let (p, k) = (&id.1, &id.2);
        let vars = variables(p).len();
        let mut ranges = Ranges::new(vars);
        let mut matched = 0usize;
        let mut keys: FastSet<Row> = FastSet::default();
        for row in rows {
            if !ranges.match_row(p, row, &self.arities) {
                continue;
            }
            matched += 1;
            if !k.is_empty() {
                keys.insert(ranges.values(k, row));
            }
        }
        let f = matched as f64 / keys.len().max(1) as f64;
        self.cache.borrow_mut().insert(id, f);
        f
    }
}

/// `pattern` and `key` with variables renumbered by first occurrence in `pattern`, so that
/// literals of the same shape share one cache entry.
fn canonical(pattern: &[Item], key: &[VarId]) -> (Pattern, Vec<VarId>) {
    let order = variables(pattern);
    let canon = |v: VarId| order.iter().position(|&w| w == v).unwrap_or(0) as VarId;
    let p = pattern
        .iter()
        .map(|i| match *i {
            Item::Var(v) => Item::Var(canon(v)),
            t => t,
        })
        .collect();
    (p, key.iter().map(|&v| canon(v)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(tokens: &[u32]) -> Row {
        Row::from_slice(tokens)
    }

    #[test]
    fn known_rows_give_rows_per_key_value() {
        // Relation 0 with rows (1 1) (1 2) (1 3) (2 1): per value of the first column, 2 rows.
        let rows = vec![row(&[0, 0]), row(&[0, 1]), row(&[0, 2]), row(&[1, 0])];
        let stats = Stats::new(BTreeMap::from([(0, rows)]), Arc::new(vec![0, 0, 0]));
        let p = vec![Item::Var(5), Item::Var(7)];
        assert_eq!(stats.fanout(0, &p, &[]), 4.0);
        assert_eq!(stats.fanout(0, &p, &[5]), 2.0);
        assert_eq!(stats.fanout(0, &p, &[5, 7]), 1.0);
        let constant = vec![Item::Tok(1), Item::Var(3)];
        assert_eq!(stats.fanout(0, &constant, &[]), 1.0);
    }

    #[test]
    fn unknown_relations_are_more_selective_with_more_bound_positions() {
        let stats = Stats::new(BTreeMap::new(), Arc::new(vec![0; 4]));
        let p = vec![Item::Var(0), Item::Var(1), Item::Var(2)];
        let all = stats.fanout(9, &p, &[]);
        let one = stats.fanout(9, &p, &[0]);
        let two = stats.fanout(9, &p, &[0, 1]);
        assert!(all > one && one > two && two > 1.0);
    }

    #[test]
    fn remembered_orders_are_chosen_once_per_body() {
        let chosen = std::cell::Cell::new(0);
        let choose = |_: &Body| {
            chosen.set(chosen.get() + 1);
            vec![1, 0]
        };
        let body = |rel: RelId| -> Body {
            let literal = (rel, vec![Item::Var(0), Item::Var(1)]);
            (
                vec![literal.clone(), (rel + 1, literal.1)],
                vec![false, true],
            )
        };
        let remembering = Stats::new(BTreeMap::new(), Arc::new(vec![0; 4])).remembering_orders();
        assert_eq!(remembering.order(body(0), choose), vec![1, 0]);
        assert_eq!(remembering.order(body(0), choose), vec![1, 0]);
        assert_eq!(chosen.get(), 1, "the same body again is not searched again");
        remembering.order(body(2), choose);
        assert_eq!(chosen.get(), 2, "another body is searched");
        // A full grounding's statistics remember nothing.
        let plain = Stats::new(BTreeMap::new(), Arc::new(vec![0; 4]));
        plain.order(body(0), choose);
        plain.order(body(0), choose);
        assert_eq!(chosen.get(), 4);
    }

    #[test]
    fn statistics_hold_over_the_same_facts_only() {
        let rows = BTreeMap::from([(0, vec![row(&[0, 1]), row(&[1, 2])])]);
        let stats = Stats::new(rows.clone(), Arc::new(vec![0, 0, 0]));
        assert!(stats.over(&rows, &[0, 0, 0]));
        assert!(!stats.over(&rows, &[0, 0, 1]), "other arities");
        let fewer = BTreeMap::from([(0, vec![row(&[0, 1])])]);
        assert!(!stats.over(&fewer, &[0, 0, 0]), "other facts");
    }
}
