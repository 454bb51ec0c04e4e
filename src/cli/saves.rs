//! Waiting for a save of one file, for `watch`: through inotify on the file's folder where
//! the system has it, so that a save is seen the moment its writer closes the file or renames
//! a new version into place (editors do both); else by looking at the file's time and size
//! every interval.
//!
//! The folder is watched rather than the file because a save by renaming replaces the file:
//! a watch on the file itself would follow the old one.

use std::ffi::OsString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::time::{Duration, Instant};

/// The inotify events that can mean a new version, or no version, of the file.
const EVENTS: u32 = libc::IN_CLOSE_WRITE
    | libc::IN_MOVED_TO
    | libc::IN_DELETE
    | libc::IN_MOVED_FROM
    | libc::IN_ATTRIB;

/// Wakes `watch` when its file may have been saved.
pub struct Saves {
    /// The inotify instance watching the file's folder (`None`: looking at intervals).
    inotify: Option<OwnedFd>,
    /// The file's name in its folder.
    name: OsString,
    /// How often to look at the file when no event comes.
    interval: Duration,
    /// When the file was last looked at.
    looked: Instant,
}

impl Saves {
    /// Waits for saves of `path`, looking at it at least every `interval`.
    pub fn new(path: &Path, interval: Duration) -> Saves {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Saves {
            inotify: watch_folder(folder),
            name: path.file_name().unwrap_or_default().to_owned(),
            interval,
            looked: Instant::now(),
        }
    }

    /// Waits up to `at_most`; whether the file should be looked at now (an event named it,
    /// or the interval has passed since it was last looked at).
    pub fn wait(&mut self, at_most: Duration) -> bool {
        let until_look = self.interval.saturating_sub(self.looked.elapsed());
        let named = match &self.inotify {
            Some(fd) => named_in_events(fd, &self.name, at_most.min(until_look)),
            None => {
                std::thread::sleep(at_most.min(until_look));
                false
            }
        };
        let due = named || self.looked.elapsed() >= self.interval;
        if due {
            self.looked = Instant::now();
        }
        due
    }
}

/// An inotify instance watching `folder` for [`EVENTS`], or `None` where there is none.
fn watch_folder(folder: &Path) -> Option<OwnedFd> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(folder.as_os_str().as_bytes()).ok()?;
    // SAFETY: inotify_init1 takes flags only; the descriptor it returns is owned here.
    let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` is a fresh descriptor nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: `path` is a NUL-terminated string that outlives the call.
    let watched = unsafe { libc::inotify_add_watch(fd.as_raw_fd(), path.as_ptr(), EVENTS) };
    (watched >= 0).then_some(fd)
}

/// Waits up to `timeout` for events on `fd`; whether one of those read names `name`.
fn named_in_events(fd: &OwnedFd, name: &OsString, timeout: Duration) -> bool {
    let mut poll = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: `poll` is one valid pollfd.
    if unsafe { libc::poll(&mut poll, 1, ms) } <= 0 {
        return false;
    }
    let mut named = false;
    let mut buffer = [0u8; 4096];
    loop {
        // SAFETY: the buffer is writable for its length; the descriptor is non-blocking.
        let read = unsafe { libc::read(fd.as_raw_fd(), buffer.as_mut_ptr().cast(), buffer.len()) };
        if read <= 0 {
            return named;
        }
        named |= names(&buffer[..read as usize], name);
    }
}

/// Whether one of the inotify events in `events` names the file `name`.
fn names(events: &[u8], name: &OsString) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let header = std::mem::size_of::<libc::inotify_event>();
    let mut at = 0;
    while at + header <= events.len() {
        // The name's length is the header's last field, a u32.
        let len_at = at + header - 4;
        let len = u32::from_ne_bytes(events[len_at..len_at + 4].try_into().expect("4 bytes"));
        let end = (at + header + len as usize).min(events.len());
        let event_name = &events[at + header..end];
        let event_name = event_name.split(|&b| b == 0).next().unwrap_or_default();
        if event_name == name.as_bytes() {
            return true;
        }
        at = end;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_save_by_writing_or_by_renaming_wakes_the_wait_at_once() {
        let dir = std::env::temp_dir().join(format!("gdlground-saves-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.kif");
        std::fs::write(&path, "(role a)").unwrap();
        let mut saves = Saves::new(&path, Duration::from_secs(60));
        assert!(saves.inotify.is_some(), "Linux has inotify");
        assert!(!saves.wait(Duration::from_millis(20)), "nothing was saved");
        std::fs::write(dir.join("other.kif"), "x").unwrap();
        assert!(
            !saves.wait(Duration::from_millis(20)),
            "another file was saved"
        );
        std::fs::write(&path, "(role b)").unwrap();
        let start = Instant::now();
        assert!(saves.wait(Duration::from_secs(5)));
        assert!(start.elapsed() < Duration::from_secs(1));
        std::fs::write(dir.join("game.kif.tmp"), "(role c)").unwrap();
        std::fs::rename(dir.join("game.kif.tmp"), &path).unwrap();
        assert!(saves.wait(Duration::from_secs(5)));
        std::fs::remove_file(&path).unwrap();
        assert!(saves.wait(Duration::from_secs(5)), "a deletion is seen too");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
