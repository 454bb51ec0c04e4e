//! Cell formatting shared by the CSV and the Markdown table: an absent value is an empty cell.

use std::fmt::Display;
use std::time::Duration;

/// A duration in milliseconds with `decimals` decimals.
pub fn ms(d: Option<Duration>, decimals: usize) -> String {
    d.map_or(String::new(), |d| {
        format!("{:.*}", decimals, d.as_secs_f64() * 1e3)
    })
}

/// A ratio with `decimals` decimals.
pub fn ratio(r: Option<f64>, decimals: usize) -> String {
    r.map_or(String::new(), |r| format!("{r:.decimals$}"))
}

/// A value's text.
pub fn opt<T: Display>(v: Option<T>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

/// `yes` for true, `no` for false.
pub fn yes_no(v: Option<bool>, no: &str) -> String {
    v.map_or(String::new(), |v| if v { "yes" } else { no }.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_values_are_empty() {
        assert_eq!(ms(None, 3), "");
        assert_eq!(ms(Some(Duration::from_micros(1500)), 1), "1.5");
        assert_eq!(ratio(Some(0.5), 2), "0.50");
        assert_eq!(opt(None::<u32>), "");
        assert_eq!(yes_no(Some(false), "no"), "no");
    }
}
