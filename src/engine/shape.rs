//! Literal shapes: a literal with its variables renumbered canonically, the unit of sharing
//! for arrangements (every literal of one shape and key reads the same index).

use super::pattern::{variables, Item, Pattern, Ranges, Row};
use super::plan::Step;
use crate::program::{RelId, VarId};

/// A literal's shape with variables renumbered by first occurrence: literals of one shape
/// (and one key) share an arrangement.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// The relation.
    pub rel: RelId,
    /// The literal's arguments, variables numbered by first occurrence.
    pub pattern: Pattern,
    /// The bound variables, in key order.
    pub key: Vec<VarId>,
    /// The variables the literal binds, in binding order.
    pub new: Vec<VarId>,
}

impl Shape {
    /// The shape of literal `rel(pattern)` joined on `key`, binding `new`.
    pub fn new(rel: RelId, pattern: &[Item], key: &[VarId], new: &[VarId]) -> Shape {
        let order = variables(pattern);
        let canon = |v: &VarId| order.iter().position(|w| w == v).unwrap_or(0) as VarId;
        Shape {
            rel,
            pattern: pattern
                .iter()
                .map(|i| match i {
                    Item::Var(v) => Item::Var(canon(v)),
                    t => *t,
                })
                .collect(),
            key: key.iter().map(canon).collect(),
            new: new.iter().map(canon).collect(),
        }
    }

    /// The shape of `step`'s literal, if it is a join.
    pub fn of(step: &Step) -> Option<Shape> {
        match step {
            Step::Join {
                rel,
                pattern,
                key,
                new,
            } => Some(Shape::new(*rel, pattern, key, new)),
            _ => None,
        }
    }

    /// The number of variables of the shape.
    pub fn vars(&self) -> usize {
        variables(&self.pattern).len()
    }

    /// A row of the relation as an entry of the literal's index: the values of the key and
    /// those of the new variables, or `None` if the row does not match (`ranges` is room for
    /// [`Shape::vars`] variables).
    pub fn entry(&self, row: &[u32], ranges: &mut Ranges, arities: &[u32]) -> Option<(Row, Row)> {
        let key = self.key_of(row, ranges, arities)?;
        Some((key, ranges.values(&self.new, row)))
    }

    /// The key of a row's entry (see [`Shape::entry`]) without its new variables' values: what
    /// a partitioned relation's rows are routed by, where the entry itself is made later.
    pub fn key_of(&self, row: &[u32], ranges: &mut Ranges, arities: &[u32]) -> Option<Row> {
        if !ranges.match_row(&self.pattern, row, arities) {
            return None;
        }
        Some(ranges.values(&self.key, row))
    }
}
