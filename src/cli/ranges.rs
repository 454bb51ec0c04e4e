//! Numeric flags checked where clap reads them: a value out of range is a usage error (exit
//! 2) that names the flag and the range, never a value silently ignored or a panic later
//! (`Duration::from_secs_f64` panics past about 1.8 × 10¹⁹ seconds).

/// The most seconds a time limit may be: about 31 years, far past any run and far below what
/// a `Duration` or an `Instant` can add.
const MAX_SECONDS: f64 = 1e9;

/// The most GiB a memory limit may be: a pebibyte.
const MAX_GIB: f64 = 1024.0 * 1024.0;

/// A number in `(0, max]` (`[0, max]` if `zero` may be), or what is wrong with `text` as one
/// (`unit` names what it counts).
fn within(text: &str, zero: bool, max: f64, unit: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of {unit}"))?;
    if value.is_finite() && (value > 0.0 || zero && value == 0.0) && value <= max {
        return Ok(value);
    }
    if zero {
        return Err(format!("must be a number of {unit} from 0 to {max}"));
    }
    Err(format!("must be a number of {unit} above 0, up to {max}"))
}

/// `--deadline`, `bench --timeout`: seconds in [0, 10⁹] (0: already passed).
pub fn seconds(text: &str) -> Result<f64, String> {
    within(text, true, MAX_SECONDS, "seconds")
}

/// `--max-memory`: GiB in (0, 2²⁰].
pub fn gibibytes(text: &str) -> Result<f64, String> {
    within(text, false, MAX_GIB, "GiB")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_positive_finite_values_within_the_bound_are_taken() {
        assert_eq!(seconds("14"), Ok(14.0));
        assert_eq!(seconds("0"), Ok(0.0));
        assert!(gibibytes("0").is_err());
        assert_eq!(gibibytes("0.25"), Ok(0.25));
        for bad in ["-1", "NaN", "inf", "1e19", "ten"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert!(gibibytes("2e6").is_err());
        assert!(seconds("1e19")
            .unwrap_err()
            .contains("from 0 to 1000000000"));
    }
}
