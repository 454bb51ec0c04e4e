//! The memory limit's and the deadline's last line of defence while a game grounds.
//!
//! The engine stops cleanly at `--max-memory` and `--deadline` when its workers check, between
//! their steps.
//! A worker deep in one long step of differential-dataflow (a join that makes millions of
//! rows at once, a merge of big arrangements) does not check, and a game whose relaxed
//! closure explodes can outgrow the machine before it does: sudoku went past the 17.7 GiB
//! limit to the kernel's kill at 24 GB. Nor does the building of the ground program after the
//! dataflow (alexChess: 45 s of its 82). So while a game grounds, a timer signal every 50 ms
//! reads the process's peak memory and the clock and, once the memory is past the limit by a
//! twentieth (the engine's own stop comes first when it can) or the deadline has passed,
//! writes the error and exits with code 2 or 3. Nothing is written while a game grounds, so
//! no partial output is left behind.
//!
//! Why a signal and not a thread: a second thread makes glibc's allocator take its locks
//! on every call from then on, which cost small games 3–7 % of their run (3pttc, hyperfine
//! against the binary without it: 0.3–0.9 ms more).
//! The handler does only what a signal handler may (`getrusage`, `write`, `_exit`), and
//! `SA_RESTART` resumes the system calls it interrupts.

use super::{EXIT_DEADLINE, EXIT_USAGE};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// How often the watchdog reads the memory, in microseconds.
const POLL_US: libc::suseconds_t = 50_000;

/// The peak resident bytes past which the handler stops the process (`u64::MAX`: none).
static THRESHOLD: AtomicU64 = AtomicU64::new(u64::MAX);
/// The monotonic clock's nanoseconds at which the handler stops the process (`u64::MAX`:
/// never).
static DEADLINE: AtomicU64 = AtomicU64::new(u64::MAX);
/// The machine's available bytes below which the handler stops the process (0: never), once
/// the process holds as much itself: other processes may take memory after the run started.
static FLOOR: AtomicU64 = AtomicU64::new(0);
/// The errors the handler writes for the memory limit, the deadline and the machine's memory
/// (the game's name and the limit, rendered beforehand).
static MESSAGES: OnceLock<[Vec<u8>; 3]> = OnceLock::new();
/// The most the machine's free memory is let fall to.
const MAX_FLOOR: u64 = 256 << 20;

/// A running watchdog; it stops when dropped.
pub struct Watchdog {
    armed: bool,
}

impl Watchdog {
    /// Watches the memory of a grounding of `game` (its name, for the errors) against
    /// `limit` bytes and the clock against `deadline`; with neither, watches nothing.
    pub fn start(limit: Option<u64>, deadline: Option<Instant>, game: &str) -> Watchdog {
        let at = deadline.and_then(|d| {
            let left = d.saturating_duration_since(Instant::now()).as_nanos();
            monotonic_ns()?.checked_add(u64::try_from(left).ok()?)
        });
        if limit.is_none() && at.is_none() {
            return Watchdog { armed: false };
        }
        let memory = limit.map_or(String::new(), gdlground::grounding::memory_error);
        let late = gdlground::grounding::DEADLINE_ERROR;
        let floor = gdlground::memory::available_bytes().map_or(0, |a| (a / 8).min(MAX_FLOOR));
        let machine = format!(
            "error: the machine has less than {} MiB of memory left (other processes took it \
             while this grounding ran); stopped before the kernel kills a process\n  \
             hint: free memory, or give --max-memory less than is free\n",
            floor >> 20
        );
        let messages = [memory, late.into(), machine].map(|m| format!("{game}: {m}").into_bytes());
        if MESSAGES.set(messages).is_err() {
            // One grounding per process: a second one is not watched.
            return Watchdog { armed: false };
        }
        if let Some(limit) = limit {
            THRESHOLD.store(limit + limit / 20, Ordering::Relaxed);
        }
        if let Some(at) = at {
            DEADLINE.store(at, Ordering::Relaxed);
        }
        FLOOR.store(floor, Ordering::Relaxed);
        // SAFETY: sigaction installs `on_timer`, which only makes async-signal-safe calls,
        // and setitimer arms the process's real-time timer; both only read what they are
        // given.
        let armed = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_timer as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut()) == 0 && set_timer(POLL_US)
        };
        Watchdog { armed }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        if self.armed {
            // The handler stays (a signal already on its way finds it) but does nothing.
            THRESHOLD.store(u64::MAX, Ordering::Relaxed);
            DEADLINE.store(u64::MAX, Ordering::Relaxed);
            FLOOR.store(0, Ordering::Relaxed);
            // SAFETY: as in `start`; an interval of 0 disarms the timer.
            unsafe { set_timer(0) };
        }
    }
}

/// Arms the real-time timer to fire every `us` microseconds (0: disarms it).
///
/// # Safety
/// Calls setitimer, which only reads the value given.
unsafe fn set_timer(us: libc::suseconds_t) -> bool {
    let every = libc::timeval {
        tv_sec: 0,
        tv_usec: us,
    };
    let timer = libc::itimerval {
        it_interval: every,
        it_value: every,
    };
    libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) == 0
}

/// The monotonic clock in nanoseconds (`clock_gettime`, async-signal-safe).
fn monotonic_ns() -> Option<u64> {
    // SAFETY: clock_gettime only writes the timespec it is given.
    let now = unsafe {
        let mut now: libc::timespec = std::mem::zeroed();
        (libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) == 0).then_some(now)?
    };
    Some((now.tv_sec as u64).saturating_mul(1_000_000_000) + now.tv_nsec as u64)
}

/// The machine's available memory, read as a signal handler may: `open`, `read` and `close`
/// into a buffer on the stack.
fn available() -> Option<u64> {
    let mut buffer = [0u8; 8192];
    // SAFETY: open, read and close are async-signal-safe; `read` writes within `buffer`.
    let read = unsafe {
        let fd = libc::open(
            gdlground::memory::MEMINFO.as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return None;
        }
        let read = libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len());
        libc::close(fd);
        read
    };
    let read = usize::try_from(read).ok()?;
    gdlground::memory::mem_available(&buffer[..read])
}

/// The SIGALRM handler: past the memory threshold or the deadline, or with the machine's
/// memory nearly gone, write the error and exit.
extern "C" fn on_timer(_: libc::c_int) {
    let late = monotonic_ns().is_some_and(|now| now >= DEADLINE.load(Ordering::Relaxed));
    let limit = THRESHOLD.load(Ordering::Relaxed);
    // SAFETY: getrusage, write and _exit are async-signal-safe; the messages are immutable
    // once set.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        // Linux reports ru_maxrss in kibibytes.
        let peak = match libc::getrusage(libc::RUSAGE_SELF, &mut usage) == 0 {
            true => (usage.ru_maxrss as u64).saturating_mul(1024),
            false => 0,
        };
        let floor = FLOOR.load(Ordering::Relaxed);
        let starved = floor > 0 && peak > floor && available().is_some_and(|a| a < floor);
        let (message, code) = match (peak > limit, late, starved) {
            (true, _, _) => (0, EXIT_USAGE),
            (false, true, _) => (1, EXIT_DEADLINE),
            (false, false, true) => (2, EXIT_USAGE),
            (false, false, false) => return,
        };
        if let Some(messages) = MESSAGES.get() {
            libc::write(
                2,
                messages[message].as_ptr().cast(),
                messages[message].len(),
            );
        }
        libc::_exit(code);
    }
}
