//! Evaluating built-ins on ground arguments.

use super::pattern::{Pattern, Ranges, Row};
use crate::program::encoding::{int_token, int_value};
use crate::program::Builtin;

/// Whether built-in `op` (negated or not) holds for a binding `row` whose variables
/// `ranges` has read: the filter step of a rule's chain.
pub fn holds_for(
    op: Builtin,
    args: &[Pattern],
    negated: bool,
    ranges: &Ranges,
    row: &[u32],
) -> bool {
    let values: Vec<Row> = args
        .iter()
        .map(|p| {
            let mut out = Row::new();
            ranges.instantiate(p, row, &mut out);
            out
        })
        .collect();
    holds(op, &values) != negated
}

/// The value of the one argument of `op` not `known` for a binding `row` whose variables
/// `ranges` has read: the compute step of a rule's chain.
pub fn compute_for(
    op: Builtin,
    args: &[Pattern],
    known: &[bool],
    ranges: &Ranges,
    row: &[u32],
) -> Option<Row> {
    let values: Vec<Option<Row>> = (args.iter().zip(known))
        .map(|(p, &known)| {
            known.then(|| {
                let mut out = Row::new();
                ranges.instantiate(p, row, &mut out);
                out
            })
        })
        .collect();
    let refs: Vec<Option<&[u32]>> = values.iter().map(|v| v.as_deref()).collect();
    compute(op, &refs)
}

/// Whether built-in `op` holds for the ground `args` (each one term). Arithmetic and
/// comparisons are false on non-integers.
pub fn holds(op: Builtin, args: &[Row]) -> bool {
    let int = |i: usize| -> Option<i64> {
        match args.get(i).map(|r| r.as_slice()) {
            Some([t]) => int_value(*t),
            _ => None,
        }
    };
    match op {
        Builtin::Distinct => args[0] != args[1],
        Builtin::Same => args[0] == args[1],
        Builtin::Leq => matches!((int(0), int(1)), (Some(x), Some(y)) if x <= y),
        Builtin::Less => matches!((int(0), int(1)), (Some(x), Some(y)) if x < y),
        Builtin::True => true,
        Builtin::Plus | Builtin::Minus | Builtin::Times => {
            let (Some(x), Some(y), Some(z)) = (int(0), int(1), int(2)) else {
                return false;
            };
            match op {
                Builtin::Plus => x.checked_add(y) == Some(z),
                Builtin::Minus => x.checked_sub(y) == Some(z),
                _ => x.checked_mul(y) == Some(z),
            }
        }
    }
}

/// The value of the one unknown argument of built-in `op` (`None` in `args`) given the others,
/// for the modes of [`Builtin::modes`]: `plus(x, y, Z)` is x + y, `plus(x, Y, z)` is z − x,
/// `same(X, t)` is t. `None` when there is no integer answer (non-integers, overflow, a
/// subtraction below the integer range) or `op` computes nothing.
pub fn compute(op: Builtin, args: &[Option<&[u32]>]) -> Option<Row> {
    let int = |i: usize| -> Option<i64> {
        match args.get(i).copied().flatten() {
            Some([t]) => int_value(*t),
            _ => None,
        }
    };
    let unknown = args.iter().position(|a| a.is_none())?;
    let value = match (op, unknown) {
        (Builtin::Same, 0) => return args[1].map(Row::from_slice),
        (Builtin::Same, 1) => return args[0].map(Row::from_slice),
        (Builtin::Plus, 2) => int(0)?.checked_add(int(1)?)?,
        (Builtin::Plus, 1) => int(2)?.checked_sub(int(0)?)?,
        (Builtin::Plus, 0) => int(2)?.checked_sub(int(1)?)?,
        (Builtin::Minus, 2) => int(0)?.checked_sub(int(1)?)?,
        (Builtin::Minus, 1) => int(0)?.checked_sub(int(2)?)?,
        (Builtin::Minus, 0) => int(2)?.checked_add(int(1)?)?,
        (Builtin::Times, 2) => int(0)?.checked_mul(int(1)?)?,
        _ => return None,
    };
    Some(Row::from_slice(&[int_token(value)?]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(n: i64) -> Row {
        Row::from_slice(&[int_token(n).unwrap()])
    }

    /// Each mode computes the value that makes the built-in hold.
    #[test]
    fn computed_values_satisfy_the_builtin() {
        for op in [Builtin::Plus, Builtin::Minus, Builtin::Times] {
            for &mode in op.modes() {
                let full = [int(7), int(3), int(0)];
                let z = compute(op, &[Some(&full[0]), Some(&full[1]), None]).unwrap();
                let full = [full[0].clone(), full[1].clone(), z];
                let unknown = (0..3).find(|i| mode & (1 << i) == 0).unwrap();
                let mut args: Vec<Option<&[u32]>> = full.iter().map(|r| Some(&r[..])).collect();
                args[unknown] = None;
                let value = compute(op, &args).unwrap();
                assert_eq!(value, full[unknown], "{op:?} mode {mode:b}");
                assert!(holds(op, &full));
            }
        }
        assert_eq!(compute(Builtin::Same, &[None, Some(&int(4))]), Some(int(4)));
        assert_eq!(compute(Builtin::Plus, &[Some(&int(1)), None, None]), None);
    }
}
