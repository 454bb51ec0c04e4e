//! Evaluating built-ins on ground arguments.

use super::pattern::Row;
use crate::program::encoding::int_value;
use crate::program::Builtin;

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
