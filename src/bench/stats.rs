//! The statistics of a benchmark: medians of repeated runs, and the exponent of a power law
//! fitted by least squares on a log-log scale.

use std::time::Duration;

/// The median of `values` (the mean of the middle two for an even count); `None` if empty.
pub fn median(values: &[Duration]) -> Option<Duration> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2),
    }
}

/// A power law `y = c · x^exponent`, fitted on `points`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerLaw {
    /// The exponent: the slope of the least-squares line through (ln x, ln y).
    pub exponent: f64,
    /// The factor c.
    pub factor: f64,
    /// How many points were fitted.
    pub points: usize,
}

/// Fits `y = c · x^k` to the points with positive x and y by least squares on (ln x, ln y);
/// `None` with fewer than two such points or when all x are equal.
pub fn fit_power_law(points: &[(f64, f64)]) -> Option<PowerLaw> {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0 && x.is_finite() && y.is_finite())
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    let n = logs.len() as f64;
    if logs.len() < 2 {
        return None;
    }
    let mean_x = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = logs.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    if sxx <= f64::EPSILON {
        return None;
    }
    let exponent = sxy / sxx;
    Some(PowerLaw {
        exponent,
        factor: (mean_y - exponent * mean_x).exp(),
        points: logs.len(),
    })
}

/// The geometric mean of positive `values`; `None` if there is none.
pub fn geometric_mean(values: &[f64]) -> Option<f64> {
    let logs: Vec<f64> = values
        .iter()
        .filter(|v| **v > 0.0 && v.is_finite())
        .map(|v| v.ln())
        .collect();
    (!logs.is_empty()).then(|| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(values: &[u64]) -> Vec<Duration> {
        values.iter().map(|v| Duration::from_millis(*v)).collect()
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&ms(&[7])), Some(Duration::from_millis(7)));
        assert_eq!(median(&ms(&[9, 1, 5])), Some(Duration::from_millis(5)));
        assert_eq!(median(&ms(&[4, 1, 9, 2])), Some(Duration::from_millis(3)));
    }

    #[test]
    fn the_exponent_of_an_exact_power_law() {
        let points: Vec<(f64, f64)> = [1.0, 10.0, 100.0, 1000.0]
            .iter()
            .map(|x: &f64| (*x, 3.0 * x.powf(1.5)))
            .collect();
        let fit = fit_power_law(&points).expect("a fit");
        assert!((fit.exponent - 1.5).abs() < 1e-9, "{fit:?}");
        assert!((fit.factor - 3.0).abs() < 1e-9, "{fit:?}");
        assert_eq!(fit.points, 4);
    }

    #[test]
    fn no_fit_without_two_distinct_positive_points() {
        assert_eq!(fit_power_law(&[(1.0, 1.0)]), None);
        assert_eq!(fit_power_law(&[(2.0, 1.0), (2.0, 5.0)]), None);
        assert_eq!(fit_power_law(&[(0.0, 1.0), (5.0, 0.0)]), None);
    }

    #[test]
    fn geometric_means() {
        assert_eq!(geometric_mean(&[]), None);
        let g = geometric_mean(&[1.0, 4.0, 16.0]).expect("a mean");
        assert!((g - 4.0).abs() < 1e-9);
    }
}
