//! `gdlground measure-child -- COMMAND...` (hidden): the small process `bench` runs each
//! measured command through, so that the command's peak memory is its own
//! (`gdlground::oracle::process`).

/// Flags of `measure-child`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The command and its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<String>,
}

/// Runs `measure-child`, returning the command's exit code.
pub fn run(args: &Args) -> i32 {
    gdlground::oracle::process::measure_child(&args.command)
}
