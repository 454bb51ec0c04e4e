//! Expanding the command line's game arguments: files as given, directories searched.

use std::path::{Path, PathBuf};

/// The extensions of game files looked for in directories.
const GAME_EXTENSIONS: [&str; 5] = ["kif", "gdl", "hrf", "pl", "epilog"];

/// The files named by `args`, directories replaced by the game files under them (sorted).
pub fn expand(args: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for arg in args {
        if arg.is_dir() {
            let mut found = Vec::new();
            walk(arg, &mut found)?;
            found.sort();
            out.extend(found);
        } else {
            out.push(arg.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| GAME_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            out.push(path);
        }
    }
    Ok(())
}
