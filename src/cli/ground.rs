//! `gdlground ground`: write the ground game and its counts.

use super::{output, SyntaxArg, EXIT_DEADLINE, EXIT_REJECTED, EXIT_USAGE};
use gdlground::engine::cluster::Cluster;
use gdlground::engine::{EngineError, Options, Round, Strategy};
use gdlground::program::Model;
use gdlground::progress::Progress;
use gdlground::syntax::{Code, Syntax};
use gdlground::write::{self, ground::AtomText, spliced::Text, Notation};
use gdlground::{ground_with, GroundError, Grounded, LoopOptions, Superset};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Flags of `ground`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game file.
    #[arg(value_name = "GAME")]
    pub(super) game: PathBuf,
    /// Where to write the ground game (`-` for stdout). The file appears only when complete.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    pub(super) output: PathBuf,
    /// Output format (default: the input's syntax).
    #[arg(long, value_enum)]
    pub(super) format: Option<FormatArg>,
    /// Print the counts (bases, actions, atoms, facts, rules, ms) on stderr; `--stats=json`
    /// prints them as one JSON object. The atoms are R* when demand restricts a relation
    /// (the line says `(R*)`, the JSON `"relevant": true`), S* otherwise.
    #[arg(long, value_name = "STYLE", num_args = 0..=1, default_missing_value = "line", value_parser = ["line", "json"])]
    pub(super) stats: Option<String>,
    #[command(flatten)]
    pub(super) engine: EngineArgs,
    #[command(flatten)]
    pub(super) processes: super::processes::ProcessArgs,
    /// Read the file in this syntax instead of guessing from extension and content.
    #[arg(long, value_enum)]
    pub(super) syntax: Option<SyntaxArg>,
    /// Ground live, then apply the edits of this script one by one, rewriting the output
    /// after each and printing one line per edit (format: docs/edits.md).
    #[arg(long, value_name = "EDITS_FILE", conflicts_with = "superset")]
    pub(super) edits: Option<PathBuf>,
    /// With --edits: after each edit's line, print the ground facts and rules it removed
    /// (`- `) and added (`+ `).
    #[arg(long, requires = "edits")]
    pub(super) diff: bool,
}

/// Engine flags shared by the commands that ground.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineArgs {
    /// Worker threads; every count gives the same output.
    #[arg(short, long, default_value_t = 1, value_name = "N")]
    workers: usize,
    /// Stop cleanly (exit code 3) after this many seconds: a player's start clock.
    #[arg(long, value_name = "SECONDS", value_parser = super::ranges::seconds)]
    deadline: Option<f64>,
    /// Stop with an error when function terms nest deeper than this.
    #[arg(long, default_value_t = 12, value_name = "DEPTH")]
    max_depth: usize,
    /// Stop with an error when S* grows past this many atoms.
    #[arg(long, default_value_t = 50_000_000, value_name = "N")]
    max_atoms: usize,
    /// Stop with an error when the process's memory passes this many GiB [default: three
    /// quarters of the memory free when the run starts: the machine's MemAvailable, or what its
    /// cgroup still allows if that is less]. Whatever the limit, a run also stops when the
    /// machine's free memory falls to 1/8 of that (at most 256 MiB), before the kernel kills.
    #[arg(long, value_name = "GIB", value_parser = super::ranges::gibibytes)]
    max_memory: Option<f64>,
    /// The superset of the reachable atoms that rules are instantiated over [default:
    /// reachable].
    #[arg(long, value_enum, value_name = "MODE")]
    superset: Option<SupersetArg>,
    /// With `--superset domain-loop`: ground over the loop's fixpoint itself, skipping the
    /// final pass (a correct ground program, less tight than over S*).
    #[arg(long, requires = "superset")]
    no_final_pass: bool,
    /// With `--superset domain-loop`: run each round in a fresh dataflow instead of
    /// retracting from the live one (the baseline the incremental loop is measured against).
    #[arg(long, requires = "superset")]
    loop_recompute: bool,
    /// Instantiate every rule as written. By default a body literal with variables that
    /// occur nowhere else in its rule is replaced by an auxiliary relation over its other
    /// variables (named after its relation and a hash, e.g. `does_5c1e07a2`), so that the
    /// rule's instances do not multiply by those variables' values; so is a group of
    /// literals that drops more free variables than it keeps (a chain of sums: `total(T) :-
    /// …, sum(N1, N2, S1), …` needs only S1 past its first sum). The game means the same,
    /// and S* and the counts leave the auxiliary atoms out.
    #[arg(long)]
    keep_locals: bool,
    /// Instantiate every rule over S*. By default a derived relation whose readers always
    /// bind some of its arguments (chess's `threatened_with_capture`, called with all seven
    /// bound) is instantiated only for the calls its readers can make: magic sets computed
    /// in the same fixpoint as the atoms (GDL.md §3.1). The game means the same; the atoms
    /// of such relations are then R* (called and derivable), not S*. (`atoms` grounds
    /// without demand unless `--relevant`.)
    #[arg(long)]
    pub(super) no_demand: bool,
    /// With `--superset domain-loop`: print each round on stderr (rows removed from `true`
    /// and `does`, derived atoms, milliseconds), then the fixpoint's sizes.
    #[arg(long, requires = "superset")]
    trace: bool,
}

/// The `--superset` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SupersetArg {
    /// S*: the least fixpoint of the relaxed program (GDL.md §2), computed directly.
    Reachable,
    /// The domain-graph method: `true` and `does` seeded with the domain graph's instances
    /// (see `gdlground domains`); derive; keep true(t) only if init(t) or next(t) was
    /// derived and does(r,m) only if legal(r,m) was; repeat, retracting from the live
    /// dataflow, until nothing shrinks. Then the final pass computes S* directly and checks
    /// that the loop's fixpoint contains it (skip it with --no-final-pass).
    DomainLoop,
}

impl EngineArgs {
    /// The engine options these flags ask for, the deadline counted from `start`.
    pub fn options(&self, start: Instant) -> Options {
        Options {
            workers: self.workers(),
            max_depth: self.max_depth,
            max_atoms: self.max_atoms,
            max_memory: match self.max_memory {
                Some(gib) => Some((gib * (1u64 << 30) as f64) as u64),
                None => gdlground::engine::default_max_memory(),
            },
            deadline: self.deadline(start),
            project_locals: !self.keep_locals,
            demand: !self.no_demand,
            progress: None,
            cluster: None,
        }
    }

    /// The worker threads asked for, at least one.
    pub fn workers(&self) -> usize {
        self.workers.max(1)
    }

    /// The instant `--deadline` names, counted from `start`.
    pub fn deadline(&self, start: Instant) -> Option<Instant> {
        (self.deadline).map(|s| start + Duration::from_secs_f64(s))
    }

    /// The superset mode these flags ask for; with `--trace`, rounds print on stderr.
    pub fn superset(&self) -> Superset {
        if self.superset != Some(SupersetArg::DomainLoop) {
            return Superset::Reachable;
        }
        let trace = self.trace;
        Superset::DomainLoop(LoopOptions {
            final_pass: !self.no_final_pass,
            strategy: if self.loop_recompute {
                Strategy::Recompute
            } else {
                Strategy::Incremental
            },
            on_round: Arc::new(move |round: &Round| {
                if trace {
                    eprintln!(
                        "loop round {}: {} derived atoms, removes {} true and {} does ({:.1} ms)",
                        round.index,
                        round.atoms,
                        round.removed.first().copied().unwrap_or(0),
                        round.removed.get(1).copied().unwrap_or(0),
                        round.elapsed.as_secs_f64() * 1000.0
                    );
                }
            }),
        })
    }

    /// Prints the loop's outcome when `--trace` asked for it.
    pub fn report(&self, grounded: &Grounded) {
        let Some(report) = grounded.reduction.as_ref().filter(|_| self.trace) else {
            return;
        };
        let kept: Vec<String> = report
            .shrunk
            .iter()
            .map(|(name, seeded, kept)| format!("{name} {kept} of {seeded}"))
            .collect();
        eprintln!(
            "loop fixpoint after {} rounds: {}; {} atoms ({:.1} ms)",
            report.rounds.len(),
            kept.join(", "),
            report.fixpoint_atoms,
            report.elapsed.as_secs_f64() * 1000.0
        );
        if let Some(atoms) = report.reachable {
            eprintln!("final pass: S* has {atoms} atoms, all in the loop's fixpoint");
        }
    }
}

/// The `--format` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum FormatArg {
    /// KIF S-expressions.
    Kif,
    /// Classic infix (for an operations game: its ground .hrf).
    Infix,
    /// JSON: atoms by id, facts, rules (operation instances among them), counts.
    Json,
}

/// Loads and grounds `path`, with the processes of `cluster` if any, printing errors; the
/// exit code on failure.
pub fn load_and_ground(
    path: &std::path::Path,
    syntax: Option<SyntaxArg>,
    engine: &EngineArgs,
    cluster: Option<Arc<Cluster>>,
    start: Instant,
) -> Result<(gdlground::Game, gdlground::Grounded), i32> {
    let game = super::load_game(path, syntax)?;
    for w in &game.warnings {
        eprint!("{}", w.render(&game.source));
    }
    let progress = Arc::new(Progress::default());
    let options = Options {
        progress: Some(progress.clone()),
        cluster,
        ..engine.options(start)
    };
    let status = super::progress::Status::show(progress);
    let watchdog =
        super::watchdog::Watchdog::start(options.max_memory, options.deadline, &game.source.name);
    let grounded = ground_with(&game.program, &options, &engine.superset());
    drop((status, watchdog));
    match grounded {
        Ok(g) => {
            engine.report(&g);
            Ok((game, g))
        }
        Err(e) => Err(report(&game, &e)),
    }
}

/// Prints why grounding `game` failed; the exit code.
pub fn report(game: &gdlground::Game, error: &GroundError) -> i32 {
    let encoding = gdlground::program::encoding::Encoding::new(&game.program);
    match error {
        GroundError::Located(d) => eprint!("{}", d.render(&game.source)),
        _ => eprint!(
            "{}: {}",
            game.source.name,
            error.render(&game.program, &encoding)
        ),
    }
    match error {
        GroundError::Engine(EngineError::Deadline) => EXIT_DEADLINE,
        // A rule too large to ground is a resource limit, as the memory limit is.
        GroundError::Located(d) if d.code == Code::TooLarge => EXIT_USAGE,
        GroundError::Located(_) => EXIT_REJECTED,
        _ => EXIT_USAGE,
    }
}

/// Runs `ground`, returning the exit code.
pub fn run(args: &Args) -> i32 {
    let start = Instant::now();
    let cluster = match args.processes.cluster() {
        Ok(cluster) => cluster,
        Err(code) => return code,
    };
    let alone = [
        (args.edits.is_some(), "--edits"),
        (
            args.engine.superset == Some(SupersetArg::DomainLoop),
            "--superset domain-loop",
        ),
    ];
    if let Some((_, what)) = alone.iter().find(|(asked, _)| *asked && cluster.is_some()) {
        eprintln!("error: {what} runs in one process\n  hint: leave out -n and -p");
        return EXIT_USAGE;
    }
    if let Err(e) = output::check_target(&args.game, &args.output) {
        eprintln!("{e}");
        return EXIT_USAGE;
    }
    if let Some(script) = &args.edits {
        return super::live::script(args, script);
    }
    let grounded = load_and_ground(&args.game, args.syntax, &args.engine, cluster, start);
    let (game, grounded) = match grounded {
        Ok(x) => x,
        Err(code) => return code,
    };
    if !args.processes.writes() {
        let (p, n) = (args.processes.process, args.processes.processes);
        eprintln!(
            "{}: process {p} of {n} done; process 0 writes the output",
            game.source.name
        );
        // Its grounding is empty: the last run's result went to process 0 alone.
        std::mem::forget(grounded);
        std::mem::forget(game);
        return 0;
    }
    let rendering = match Rendering::new(args.format, &game, args.engine.workers()) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let written = output::write_until(&args.output, args.engine.deadline(start), |out| {
        rendering.write(&grounded, &game.program, out)
    });
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
            let late = gdlground::grounding::DEADLINE_ERROR;
            eprint!("{}: {late}", game.source.name);
            return EXIT_DEADLINE;
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", args.output.display());
            return EXIT_USAGE;
        }
        Ok(()) => {}
    }
    let elapsed = start.elapsed();
    let ms = elapsed.as_millis();
    // Counted only when asked for: a pass over every atom (amazonsTorus: 25 ms).
    let counts = || grounded.ground.counts(grounded.program(&game.program));
    match args.stats.as_deref() {
        Some("json") => eprintln!(
            "{}",
            write::ground::stats_json(&counts(), Some(elapsed), grounded.reduction.as_ref())
        ),
        Some(_) => eprintln!(
            "{}: {}",
            game.source.name,
            write::ground::stats_line(&counts(), ms)
        ),
        None => {}
    }
    // The process exits next, which hands its memory back at once: freeing the game and
    // millions of ground rules piece by piece would only add time (alexChess__v1: 0.15 s).
    std::mem::forget(grounded);
    std::mem::forget(game);
    0
}

/// How a ground game is written: the format asked for, settled against the game.
#[derive(Clone, Copy, Debug)]
pub struct Rendering {
    format: Option<FormatArg>,
    notation: Notation,
    /// Threads that spell the text (the worker count).
    threads: usize,
}

impl Rendering {
    /// The rendering `format` asks for (default: the game's own syntax), spelled on `threads`
    /// threads; an error (printed, with the exit code) if the game cannot be written so.
    pub fn new(
        format: Option<FormatArg>,
        game: &gdlground::Game,
        threads: usize,
    ) -> Result<Rendering, i32> {
        let notation = match format {
            Some(FormatArg::Kif) if game.program.model == Model::Operations => {
                eprintln!(
                    "error: an operations game is written in infix (`--format infix` or json)"
                );
                return Err(EXIT_USAGE);
            }
            Some(FormatArg::Kif) => Notation::Kif,
            Some(FormatArg::Infix) => Notation::Infix,
            Some(FormatArg::Json) | None if game.syntax == Syntax::Kif => Notation::Kif,
            Some(FormatArg::Json) | None => Notation::Infix,
        };
        if notation == Notation::Kif {
            if let Err(e) = write::kif_names(&game.program) {
                eprintln!("error: {e} (`--format infix`)");
                return Err(EXIT_USAGE);
            }
        }
        Ok(Rendering {
            format,
            notation,
            threads,
        })
    }

    /// The notation atoms are written in.
    pub fn notation(&self) -> Notation {
        self.notation
    }

    /// Brings `text`, kept to splice the next version's from, to `grounded` (a grounding of
    /// `original`, as for [`Rendering::write`]): spliced from the previous version's text
    /// when `delta` gives what changed since and the versions write shared lines alike
    /// ([`gdlground::Update::in_order`]), else written afresh. JSON keeps no text (`None`):
    /// it is written whole.
    pub fn advance(
        &self,
        text: &mut Option<Text>,
        grounded: &Grounded,
        original: &gdlground::program::Program,
        delta: Option<&gdlground::GroundDelta>,
    ) {
        if let Some(FormatArg::Json) = self.format {
            return;
        }
        let program = grounded.program(original);
        let atoms = AtomText::new(program, &grounded.encoding, self.notation);
        match (text.as_mut(), delta) {
            (Some(text), Some(delta)) => text.advance(&grounded.ground, &atoms, delta),
            (Some(text), None) => text.rebuild(&grounded.ground, &atoms),
            (None, _) => *text = Some(Text::new(&grounded.ground, &atoms)),
        }
    }

    /// Writes `grounded`, a grounding of `original` (the game the rendering was made for, or
    /// a version of it), to `out`.
    pub fn write(
        &self,
        grounded: &Grounded,
        original: &gdlground::program::Program,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let program = grounded.program(original);
        match self.format {
            Some(FormatArg::Json) => {
                let kif = AtomText::new(program, &grounded.encoding, Notation::Kif);
                let counts = grounded.ground.counts(program);
                out.write_all(write::ground::json(&grounded.ground, &kif, &counts).as_bytes())
            }
            _ => {
                let atoms = AtomText::new(program, &grounded.encoding, self.notation);
                write::ground::write_text(&grounded.ground, &atoms, self.threads, out)
            }
        }
    }
}
