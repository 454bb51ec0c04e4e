//! Ctrl-C (and `kill`) as a request to stop: `watch` runs until interrupted, and an interrupt
//! that killed it at once would leave behind the spare text its output keeps beside the file
//! (see [`super::output::Rewriter`]). The first SIGINT or SIGTERM is noted, and the loop that
//! polls [`Interrupt::signal`] ends and cleans up; a second one kills the process as usual
//! (the handler is reset after the first), for a re-grounding that takes long.

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that asked to stop, 0 before one has.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The handlers installed; dropping does not remove them (the process is ending).
pub struct Interrupt;

impl Interrupt {
    /// Installs the handlers of SIGINT and SIGTERM.
    pub fn catch() -> Interrupt {
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: sigaction installs `on_signal`, which only stores to an atomic (async-
            // signal-safe); SA_RESETHAND puts the default action back for a second signal.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART | libc::SA_RESETHAND;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
        Interrupt
    }

    /// The signal that asked to stop, if one has.
    pub fn signal(&self) -> Option<i32> {
        Some(SIGNAL.load(Ordering::Relaxed)).filter(|&s| s != 0)
    }
}

extern "C" fn on_signal(signal: libc::c_int) {
    SIGNAL.store(signal, Ordering::Relaxed);
}
