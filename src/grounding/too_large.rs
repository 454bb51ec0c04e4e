//! The engine's refusal of a rule too large to ground ([`crate::engine::TooLarge`]), as a
//! diagnostic at the rule: what multiplies its instances, how many, and what to do.

use super::GroundError;
use crate::engine::EngineError;
use crate::program::{Origin, Program, VarId};
use crate::syntax::{Code, Diagnostic};

/// `error`, the engine's error grounding `program`, as the user should see it: a rule too
/// large to ground is located at the rule (its origin in `program`, the program grounded).
pub fn located(error: EngineError, program: &Program) -> GroundError {
    let EngineError::TooLarge(large) = error else {
        return GroundError::Engine(error);
    };
    let Some(origin) = program.rule_origins.get(large.rule) else {
        return GroundError::Engine(EngineError::TooLarge(large));
    };
    let (bytes, limit) = large.bytes;
    let message = format!(
        "this rule has about {} instances over the facts, too many to ground: {} multiply \
         them; they need at least {}, {} times the memory limit",
        count(large.instances),
        factors(&large.factors, origin),
        memory(bytes),
        count(bytes / u128::from(limit.max(1))),
    );
    GroundError::Located(
        Diagnostic::error(Code::TooLarge, origin.span, message).with_hint(
            "a body whose literals share no variable grounds every combination of them: tie \
             them together with shared variables, or derive the relation step by step from \
             smaller instances, or raise --max-memory if the machine has the memory",
        ),
    )
}

/// How many factors the message lists.
const SHOWN: usize = 4;

/// The variables that multiply a rule's instances, as written in `origin`, with the values
/// (or combinations of values) each step brings: the first [`SHOWN`], and how many more.
fn factors(factors: &[(Vec<VarId>, u64)], origin: &Origin) -> String {
    let shown = factors.iter().take(SHOWN).map(|(vars, values)| {
        let names: Vec<String> = vars.iter().map(|&v| origin.shown_var(v)).collect();
        let what = match vars.len() {
            1 => "values",
            _ => "combinations",
        };
        format!(
            "{} ({} {what})",
            names.join(" "),
            count(u128::from(*values))
        )
    });
    let mut text = shown.collect::<Vec<_>>().join(" × ");
    if factors.len() > SHOWN {
        text += &format!(" × {} more", factors.len() - SHOWN);
    }
    text
}

/// `bytes` for people: GiB below an exbibyte (as the memory limit is given), else bytes
/// in scientific notation.
fn memory(bytes: u128) -> String {
    match u64::try_from(bytes) {
        Ok(b) if b < 1 << 60 => super::bytes(b),
        _ => format!("{:.1e} bytes", bytes as f64),
    }
}

/// `n` for people: exact below a million, else in scientific notation.
fn count(n: u128) -> String {
    match n < 1_000_000 {
        true => n.to_string(),
        false => format!("{:.1e}", n as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_plainly() {
        assert_eq!(count(999_999), "999999");
        assert_eq!(count(1_360_000_000), "1.4e9");
    }
}
