//! Running an external command under a time limit, measuring its wall time and peak memory.
//!
//! Input: a command line, the text for its stdin, a limit, and a function that consumes its
//! stdout while it runs. Output: a [`Finished`] with the exit status, the wall time from spawn
//! to exit, the peak resident set size of that one child (`wait4`'s `ru_maxrss`, not
//! `RUSAGE_CHILDREN`, which would mix in every earlier child), what the reader returned and
//! stderr.
//!
//! Peak memory needs care: Linux gives a child at least the peak RSS its parent had when it
//! spawned it (exec records the high-water mark of the memory it replaces, and `posix_spawn`
//! shares the parent's). A benchmark whose own memory grows would inflate every later
//! measurement, so [`through_runner`] runs a command through a fresh, small process of our own
//! executable ([`measure_child`]), which reports the command's own wall time, peak RSS and
//! status in a last stderr line that [`run`] reads back.
//!
//! The child leads its own process group, so that a kill at the limit also ends its children.
//! Invariant: the child is reaped exactly once, by `wait4`; a watcher thread waits for its exit
//! with `waitid(WNOWAIT)`, which leaves it a zombie, so a kill on timeout can never reach a
//! reused pid.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A command that ran to its end, or was killed at the limit.
#[derive(Debug)]
pub struct Finished<T> {
    /// The exit status; `None` if the command was killed at the time limit.
    pub status: Option<ExitStatus>,
    /// Wall time from spawn to exit (to the kill, on timeout).
    pub wall: Duration,
    /// Peak resident set size of the child, in KiB.
    pub peak_rss_kib: u64,
    /// What the stdout reader returned.
    pub output: T,
    /// Everything the command wrote on stderr.
    pub stderr: String,
}

impl<T> Finished<T> {
    /// Whether the command exited with status 0.
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }
}

/// The first word of the line a runner writes last on stderr.
const REPORT: &str = "%gdlground-measured";

/// `argv` run through `runner`, our own executable, as `RUNNER measure-child -- ARGV...`.
pub fn through_runner(runner: &std::path::Path, argv: &[String]) -> Vec<String> {
    let mut wrapped = vec![
        runner.display().to_string(),
        "measure-child".into(),
        "--".into(),
    ];
    wrapped.extend(argv.iter().cloned());
    wrapped
}

/// The runner (`gdlground measure-child -- ARGV...`): runs `argv` with this process's stdin,
/// stdout and stderr, then writes `%gdlground-measured WALL_NS PEAK_RSS_KIB WAIT_STATUS` on
/// stderr; returns the command's exit code (128 + the signal if a signal ended it).
pub fn measure_child(argv: &[String]) -> i32 {
    let Some((program, args)) = argv.split_first() else {
        eprintln!("error: measure-child needs a command");
        return 2;
    };
    let start = Instant::now();
    let child = match Command::new(program).args(args).spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!("error: cannot run {program}: {e}");
            return 2;
        }
    };
    let reaped = reap(child.id() as libc::pid_t);
    let wall = start.elapsed();
    drop(child);
    match reaped {
        Ok((status, rss)) => {
            eprintln!("{REPORT} {} {rss} {}", wall.as_nanos(), status.into_raw());
            status
                .code()
                .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
        }
        Err(e) => {
            eprintln!("error: cannot wait for {program}: {e}");
            2
        }
    }
}

/// The runner's report at the end of `stderr`: (wall, peak RSS, status) and stderr without it.
fn runner_report(stderr: &str) -> Option<((Duration, u64, ExitStatus), &str)> {
    let trimmed = stderr.strip_suffix('\n')?;
    let (before, last) = match trimmed.rfind('\n') {
        Some(i) => (&stderr[..=i], &trimmed[i + 1..]),
        None => ("", trimmed),
    };
    let mut words = last.strip_prefix(REPORT)?.split_whitespace();
    let wall = Duration::from_nanos(words.next()?.parse().ok()?);
    let rss = words.next()?.parse().ok()?;
    let status = ExitStatus::from_raw(words.next()?.parse().ok()?);
    Some(((wall, rss, status), before))
}

/// Runs `argv` with `input` on stdin (`None`: no stdin), `read` consuming its stdout, killed
/// after `timeout`. Errors only if the command cannot be started or waited for.
pub fn run<T: Send + 'static>(
    argv: &[String],
    input: Option<String>,
    timeout: Duration,
    read: impl FnOnce(ChildStdout) -> T + Send + 'static,
) -> std::io::Result<Finished<T>> {
    let Some((program, args)) = argv.split_first() else {
        return Err(std::io::Error::other("empty command line"));
    };
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let pid = child.id() as libc::pid_t;
    let stdin = child.stdin.take();
    let (Some(stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        panic!("internal error: the child's pipes were not opened");
    };
    // A write error means the child stopped reading: its exit status tells why.
    let writer = std::thread::spawn(move || {
        if let (Some(mut stdin), Some(text)) = (stdin, input) {
            let _ = stdin.write_all(text.as_bytes());
        }
    });
    let reader = std::thread::spawn(move || read(stdout));
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let (exited, watched) = mpsc::channel();
    let watcher = std::thread::spawn(move || {
        let waited = wait_without_reaping(pid);
        let _ = exited.send((waited, start.elapsed()));
    });
    let (killed, wall) = match watched.recv_timeout(timeout) {
        Ok((waited, wall)) => {
            waited?;
            (false, wall)
        }
        Err(_) => {
            // Still running, or a zombie: either way the pid, and the process group the child
            // leads, are still ours; the group takes any grandchildren holding the pipes.
            // SAFETY: kill(2) on the process group of a child we spawned and have not reaped.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
            (true, start.elapsed())
        }
    };
    let (status, peak_rss_kib) = reap(pid)?;
    let _ = watcher.join();
    let _ = writer.join();
    drop(child);
    let output = reader
        .join()
        .map_err(|_| std::io::Error::other("the output reader panicked"))?;
    let mut stderr = errors.join().unwrap_or_default();
    let (mut wall, mut peak_rss_kib, mut status) = (wall, peak_rss_kib, status);
    if let Some(((w, rss, s), rest)) = runner_report(&stderr) {
        (wall, peak_rss_kib, status) = (w, rss, s);
        stderr = rest.to_owned();
    }
    Ok(Finished {
        status: (!killed).then_some(status),
        wall,
        peak_rss_kib,
        output,
        stderr,
    })
}

/// Blocks until child `pid` has exited, leaving it unreaped.
fn wait_without_reaping(pid: libc::pid_t) -> std::io::Result<()> {
    loop {
        // SAFETY: a zeroed siginfo_t is a valid out-parameter for waitid(2).
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid(2) on our own child, writing into `info`.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Reaps child `pid`: its exit status and peak resident set size in KiB.
fn reap(pid: libc::pid_t) -> std::io::Result<(ExitStatus, u64)> {
    loop {
        let mut status = 0;
        // SAFETY: a zeroed rusage is a valid out-parameter for wait4(2).
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: wait4(2) on our own child, writing into `status` and `usage`.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            let rss = u64::try_from(usage.ru_maxrss).unwrap_or(0);
            return Ok((ExitStatus::from_raw(status), rss));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> Finished<String> {
        let argv = ["sh", "-c", script].map(String::from);
        run(&argv, Some("input\n".into()), timeout, |mut out| {
            let mut s = String::new();
            let _ = out.read_to_string(&mut s);
            s
        })
        .expect("sh runs")
    }

    #[test]
    fn output_status_and_memory() {
        let done = sh("cat; echo oops >&2; exit 3", Duration::from_secs(10));
        assert_eq!(done.output, "input\n");
        assert_eq!(done.stderr, "oops\n");
        assert_eq!(done.status.and_then(|s| s.code()), Some(3));
        assert!(done.peak_rss_kib > 0);
    }

    #[test]
    fn a_runners_report_replaces_the_measurements() {
        let script = "echo warning >&2; echo '%gdlground-measured 1500000 4321 256' >&2; exit 1";
        let done = sh(script, Duration::from_secs(10));
        assert_eq!(done.stderr, "warning\n");
        assert_eq!(done.wall, Duration::from_micros(1500));
        assert_eq!(done.peak_rss_kib, 4321);
        assert_eq!(done.status.and_then(|s| s.code()), Some(1));
    }

    #[test]
    fn killed_at_the_limit() {
        let done = sh("sleep 5; true", Duration::from_millis(100));
        assert!(done.status.is_none());
        assert!(done.wall < Duration::from_secs(4));
    }
}
