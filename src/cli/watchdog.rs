//! The memory limit's last line of defence while a game grounds.
//!
//! The engine stops cleanly at `--max-memory` when its workers check, between their steps.
//! A worker deep in one long step of differential-dataflow (a join that makes millions of
//! rows at once, a merge of big arrangements) does not check, and a game whose relaxed
//! closure explodes can outgrow the machine before it does: sudoku went past the 17.7 GiB
//! limit to the kernel's kill at 24 GB. So while a game grounds, a timer signal every 50 ms
//! reads the process's peak memory and, once it is past the limit by a twentieth (the
//! engine's own stop comes first when it can), writes the limit's error and exits with
//! code 2. Nothing is written while a game grounds, so no partial output is left behind.
//!
//! Why a signal and not a thread: a second thread makes glibc's allocator take its locks
//! on every call from then on, which cost small games 3–7 % of their run (3pttc, hyperfine
//! against the binary without it: 0.3–0.9 ms more).
//! The handler does only what a signal handler may (`getrusage`, `write`, `_exit`), and
//! `SA_RESTART` resumes the system calls it interrupts.

use super::EXIT_USAGE;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// How often the watchdog reads the memory, in microseconds.
const POLL_US: libc::suseconds_t = 50_000;

/// The peak resident bytes past which the handler stops the process (`u64::MAX`: none).
static THRESHOLD: AtomicU64 = AtomicU64::new(u64::MAX);
/// The error the handler writes (the game's name and the limit, rendered beforehand).
static MESSAGE: OnceLock<Vec<u8>> = OnceLock::new();

/// A running watchdog; it stops when dropped.
pub struct Watchdog {
    armed: bool,
}

impl Watchdog {
    /// Watches the memory of a grounding of `game` (its name, for the error) against
    /// `limit` bytes; with no limit, watches nothing.
    pub fn start(limit: Option<u64>, game: &str) -> Watchdog {
        let Some(limit) = limit else {
            return Watchdog { armed: false };
        };
        let message = format!("{game}: {}", gdlground::grounding::memory_error(limit));
        if MESSAGE.set(message.into_bytes()).is_err() {
            // One grounding per process: a second one is not watched.
            return Watchdog { armed: false };
        }
        THRESHOLD.store(limit + limit / 20, Ordering::Relaxed);
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

/// The SIGALRM handler: past the threshold, write the error and exit.
extern "C" fn on_timer(_: libc::c_int) {
    let limit = THRESHOLD.load(Ordering::Relaxed);
    // SAFETY: getrusage, write and _exit are async-signal-safe; the message is immutable
    // once set.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return;
        }
        // Linux reports ru_maxrss in kibibytes.
        if (usage.ru_maxrss as u64).saturating_mul(1024) <= limit {
            return;
        }
        if let Some(message) = MESSAGE.get() {
            libc::write(2, message.as_ptr().cast(), message.len());
        }
        libc::_exit(EXIT_USAGE);
    }
}
