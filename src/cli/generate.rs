//! `gdlground generate`: write the games of the scaling series.

use super::{output, EXIT_USAGE};
use gdlground::bench::generate::{self, Family};
use std::path::PathBuf;

/// Flags of `generate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The family: hex, counter, connectfour, or all.
    #[arg(value_name = "FAMILY")]
    family: String,
    /// Sizes (hex: board side; counter: last step; connectfour: columns). Default: the
    /// standard series.
    #[arg(value_name = "SIZE")]
    sizes: Vec<usize>,
    /// Write FAMILY_SIZE.kif files into this directory instead of printing one game.
    #[arg(short, long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Runs `generate`, returning the exit code.
pub fn run(args: &Args) -> i32 {
    match generate(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_USAGE
        }
    }
}

/// Writes or prints the games asked for.
fn generate(args: &Args) -> Result<(), String> {
    let families = match args.family.as_str() {
        "all" => Family::ALL.to_vec(),
        name => vec![Family::from_name(name).ok_or_else(|| {
            format!("unknown family `{name}`\n  hint: hex, counter, connectfour or all")
        })?],
    };
    let Some(dir) = &args.dir else {
        let (&[family], &[size]) = (&families[..], &args.sizes[..]) else {
            return Err("without --dir, give one family and one size\n  hint: \
                        gdlground generate hex 11 > hex_11.kif"
                .into());
        };
        let text = family.game(size)?;
        return output::write(std::path::Path::new("-"), &text)
            .map_err(|e| format!("cannot write the game: {e}"));
    };
    for family in families {
        let sizes = if args.sizes.is_empty() {
            family.series()
        } else {
            &args.sizes
        };
        for path in generate::write_games(dir, family, sizes)? {
            println!("{}", path.display());
        }
    }
    Ok(())
}
