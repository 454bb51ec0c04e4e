//! Writing results: to stdout, or to a file replaced atomically (a temporary file in the same
//! directory, renamed at the end), so that a failed run never leaves a partial file. Paths
//! that exist and are not regular files (`/dev/null`, a pipe) are written directly: renaming
//! over them would replace the device.

use std::io::Write;
use std::path::Path;

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
    let into = |file: &mut dyn Write| {
        let mut buffered = std::io::BufWriter::with_capacity(1 << 20, file);
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
