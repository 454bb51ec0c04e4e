//! What the report says about where and when it was measured: the CPU, cores, memory, and the
//! date, read from `/proc` and the system clock (best effort: `unknown` where unreadable).

use std::time::{SystemTime, UNIX_EPOCH};

/// The machine a benchmark ran on.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// The CPU model name.
    pub cpu: String,
    /// Logical cores.
    pub cores: usize,
    /// Total memory, GiB.
    pub memory_gib: f64,
}

impl Machine {
    /// This machine.
    pub fn this() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
            .map_or("unknown".to_string(), |(_, m)| m.trim().to_owned());
        let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let kib: f64 = meminfo
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0.0);
        Machine {
            cpu,
            cores,
            memory_gib: kib / (1024.0 * 1024.0),
        }
    }
}

/// The load averages over 1, 5 and 15 minutes (`/proc/loadavg`), or `unknown`: other work on
/// the machine makes times noisy, and the report says how busy it was.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|load| !load.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// The current date and time, `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc(secs)
}

/// The UTC date and time of `secs` seconds after the Unix epoch, `YYYY-MM-DD HH:MM UTC`.
fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let (hour, minute) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02} UTC")
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn dates() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_795_330_800), "2026-11-22 07:00 UTC");
    }
}
