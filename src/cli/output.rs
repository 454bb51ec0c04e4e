//! Writing results: to stdout, or to a file replaced atomically (a temporary file in the same
//! directory, renamed at the end), so that a failed run never leaves a partial file. Paths
//! that exist and are not regular files (`/dev/null`, a pipe) are written directly: renaming
//! over them would replace the device.

use std::io::{ErrorKind, Write};
use std::path::Path;
use std::time::Instant;

/// Writes `text` to `path` (`-` is stdout). A broken pipe on stdout is not an error.
pub fn write(path: &Path, text: &str) -> std::io::Result<()> {
    write_bytes(path, text.as_bytes())
}

/// Writes `bytes` to `path` (`-` is stdout). A broken pipe on stdout is not an error.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, |out| out.write_all(bytes))
}

/// Writes what `fill` writes to `path` (`-` is stdout), streamed through a buffer: a large
/// output never has to fit in memory as one string. A broken pipe on stdout is not an error.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_until(path, None, fill)
}

/// [`write_with`], failing with [`ErrorKind::TimedOut`] (and leaving no file) once
/// `deadline` has passed: `ground --deadline` covers the writing of a large game too.
pub fn write_until(
    path: &Path,
    deadline: Option<Instant>,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let into = |file: &mut dyn Write| {
        let mut timed = Timed { file, deadline };
        let mut buffered = std::io::BufWriter::with_capacity(1 << 20, &mut timed);
        fill(&mut buffered)?;
        buffered.flush()
    };
    if path.as_os_str() == "-" {
        return match into(&mut std::io::stdout().lock()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other,
        };
    }
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        let mut device = std::fs::OpenOptions::new().write(true).open(path)?;
        return into(&mut device);
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let name = path
        .file_name()
        .map_or("output".into(), |n| n.to_string_lossy().into_owned());
    let temp = dir
        .unwrap_or(Path::new("."))
        .join(format!(".{name}.tmp-{}", std::process::id()));
    let result = std::fs::File::create(&temp)
        .and_then(|mut file| into(&mut file))
        .and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// A writer that fails once its deadline has passed; it sits under the buffer, so the
/// clock is read once a mebibyte.
struct Timed<'a> {
    file: &'a mut dyn Write,
    deadline: Option<Instant>,
}

impl Write for Timed<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(std::io::Error::new(
                ErrorKind::TimedOut,
                "the deadline passed while writing",
            ));
        }
        self.file.write(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_past_its_deadline_fails_and_leaves_no_file() {
        let dir = std::env::temp_dir().join(format!("gdlground-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let path = dir.join("late.kif");
        let late = write_until(&path, Some(Instant::now()), |out| {
            out.write_all(b"(role r)\n")
        });
        assert_eq!(late.map_err(|e| e.kind()), Err(ErrorKind::TimedOut));
        assert_eq!(std::fs::read_dir(&dir).expect("listed").count(), 0);
        let later = Instant::now() + std::time::Duration::from_secs(3600);
        write_until(&path, Some(later), |out| out.write_all(b"(role r)\n")).expect("written");
        assert_eq!(
            std::fs::read_to_string(&path).ok().as_deref(),
            Some("(role r)\n")
        );
        std::fs::remove_dir_all(&dir).expect("removed");
    }
}
