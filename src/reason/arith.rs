//! The built-ins of the Stanford infix for the reference reasoner: tests on ground arguments
//! and the value of the one unknown argument. Written apart from `engine/` on purpose, like the
//! rest of this module.

use crate::engine::Row;
use crate::program::encoding::{int_token, int_value};
use crate::program::Builtin;

/// The integer a one-token row stands for.
fn int(row: &Row) -> Option<i64> {
    match row.as_slice() {
        [t] => int_value(*t),
        _ => None,
    }
}

/// Whether `op` holds for the ground `args`; arithmetic is false on non-integers.
pub(super) fn holds(op: Builtin, args: &[Row]) -> bool {
    let n: Vec<Option<i64>> = args.iter().map(int).collect();
    match (op, &n[..]) {
        (Builtin::Distinct, _) => args[0] != args[1],
        (Builtin::Same, _) => args[0] == args[1],
        (Builtin::True, _) => true,
        (Builtin::Leq, [Some(x), Some(y)]) => x <= y,
        (Builtin::Less, [Some(x), Some(y)]) => x < y,
        (Builtin::Plus, [Some(x), Some(y), Some(z)]) => x.checked_add(*y) == Some(*z),
        (Builtin::Minus, [Some(x), Some(y), Some(z)]) => x.checked_sub(*y) == Some(*z),
        (Builtin::Times, [Some(x), Some(y), Some(z)]) => x.checked_mul(*y) == Some(*z),
        _ => false,
    }
}

/// The value of the one unknown argument (`None` in `args`) that makes `op` hold, if there is
/// exactly one: `plus(2, Y, 5)` gives 3.
pub(super) fn solve(op: Builtin, args: &[Option<Row>]) -> Option<Row> {
    let unknown = args.iter().position(Option::is_none)?;
    if op == Builtin::Same {
        return args[1 - unknown.min(1)].clone();
    }
    let k = |i: usize| args[i].as_ref().and_then(int);
    // x + y = z and x − y = z, solved for the unknown position.
    let result = match (op, unknown) {
        (Builtin::Plus, 2) => k(0)?.checked_add(k(1)?),
        (Builtin::Plus, i) => k(2)?.checked_sub(k(1 - i)?),
        (Builtin::Minus, 2) => k(0)?.checked_sub(k(1)?),
        (Builtin::Minus, 1) => k(0)?.checked_sub(k(2)?),
        (Builtin::Minus, 0) => k(2)?.checked_add(k(1)?),
        (Builtin::Times, 2) => k(0)?.checked_mul(k(1)?),
        _ => None,
    }?;
    Some(Row::from_slice(&[int_token(result)?]))
}
