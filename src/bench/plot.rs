//! The SVG plots of a benchmark (plotters, SVG backend only): our time against gringo's per
//! game, and time against output size for both tools, each on log–log axes.

use super::row::Row;
use super::summary::worker_counts;
use plotters::prelude::*;

/// Colours for gdlground's worker counts, in order; gringo is red.
const OURS: [RGBColor; 4] = [BLUE, GREEN, MAGENTA, CYAN];

/// A named series of points.
struct Series {
    label: String,
    color: RGBColor,
    points: Vec<(f64, f64)>,
}

/// The SVG of our time (ms) against gringo's on the full translation, one point per row where
/// both finished, with the diagonal y = x.
pub fn time_vs_gringo(rows: &[Row]) -> Result<String, String> {
    let series: Vec<Series> = worker_counts(rows)
        .into_iter()
        .enumerate()
        .map(|(i, w)| Series {
            label: format!("gdlground -w {w}"),
            color: OURS[i % OURS.len()],
            points: rows
                .iter()
                .filter(|r| r.ours.workers == w)
                .filter_map(|r| Some((ms(r.full.run?.wall), ms(r.ours.wall?))))
                .collect(),
        })
        .collect();
    draw(
        "gdlground against gringo, per game",
        "gringo, full translation (ms)",
        "gdlground (ms)",
        &series,
        true,
    )
}

/// The SVG of time (ms) against output size (ground statements) for both tools.
pub fn time_vs_size(rows: &[Row]) -> Result<String, String> {
    let workers = worker_counts(rows);
    let mut series: Vec<Series> = workers
        .iter()
        .enumerate()
        .map(|(i, &w)| Series {
            label: format!("gdlground -w {w} (facts + rules)"),
            color: OURS[i % OURS.len()],
            points: rows
                .iter()
                .filter(|r| r.ours.workers == w)
                .filter_map(|r| Some((r.our_size()? as f64, ms(r.ours.wall?))))
                .collect(),
        })
        .collect();
    let first = workers.first().copied().unwrap_or(1);
    series.push(Series {
        label: "gringo (statements printed)".into(),
        color: RED,
        points: rows
            .iter()
            .filter(|r| r.ours.workers == first)
            .filter_map(|r| Some((r.their_size()? as f64, ms(r.full.run?.wall))))
            .collect(),
    });
    draw(
        "time against output size",
        "output size (ground statements)",
        "time (ms)",
        &series,
        false,
    )
}

/// Milliseconds of a duration.
fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A log–log scatter plot of `series`, with the diagonal if `diagonal`.
fn draw(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    diagonal: bool,
) -> Result<String, String> {
    let all = || series.iter().flat_map(|s| s.points.iter());
    let range = |pick: fn(&(f64, f64)) -> f64| {
        let values = all().map(pick).filter(|v| *v > 0.0);
        let lo = values.clone().fold(f64::INFINITY, f64::min);
        let hi = values.fold(0.0, f64::max);
        if lo.is_finite() && hi > 0.0 {
            (lo / 2.0, hi * 2.0)
        } else {
            (1.0, 10.0)
        }
    };
    let (mut x, mut y) = (range(|p| p.0), range(|p| p.1));
    if diagonal {
        let both = (x.0.min(y.0), x.1.max(y.1));
        (x, y) = (both, both);
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 600)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d((x.0..x.1).log_scale(), (y.0..y.1).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .x_label_formatter(&tick)
            .y_label_formatter(&tick)
            .draw()
            .map_err(err)?;
        if diagonal {
            chart
                .draw_series(LineSeries::new([(x.0, x.0), (x.1, x.1)], BLACK.mix(0.5)))
                .map_err(err)?
                .label("equal time")
                .legend(|(a, b)| PathElement::new([(a, b), (a + 20, b)], BLACK.mix(0.5)));
        }
        for s in series {
            let color = s.color;
            chart
                .draw_series(
                    s.points
                        .iter()
                        .filter(|(a, b)| *a > 0.0 && *b > 0.0)
                        .map(move |&p| Circle::new(p, 4, color.filled())),
                )
                .map_err(err)?
                .label(&s.label)
                .legend(move |(a, b)| Circle::new((a + 10, b), 4, color.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// An axis label: whole numbers without decimals.
fn tick(v: &f64) -> String {
    if *v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// A plotting error as a message.
fn err(e: impl std::fmt::Display) -> String {
    format!("cannot draw the plot: {e}")
}
