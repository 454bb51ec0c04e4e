//! The grounding pipeline after loading: program → encoding → (analysis) → engine → ground
//! program.

mod delta;
mod domain_loop;
mod session;
mod too_large;

pub use delta::GroundDelta;
pub use session::{Session, Update};

pub use domain_loop::{LoopOptions, LoopReport};

use crate::analysis::demand;
use crate::engine::{self, EngineError, Instantiation, Options};
use crate::ground::GroundProgram;
use crate::program::encoding::Encoding;
use crate::program::operations::lower_operations;
use crate::program::project::{project_locals_reusing, Searches};
use crate::program::{Literal, Model, Program};
use crate::progress::Stage;
use crate::syntax::Span;
use crate::syntax::{Code, Diagnostic};
use crate::write::ground::AtomText;
use crate::write::Notation;

/// A grounded game: the encoding of its terms, the engine's result and the ground program.
#[derive(Clone, Debug)]
pub struct Grounded {
    /// How ground terms are encoded.
    pub encoding: Encoding,
    /// S* and the instances.
    pub instantiation: Instantiation,
    /// The simplified ground program.
    pub ground: GroundProgram,
    /// What the domain-graph reduction loop did, when it ran.
    pub reduction: Option<LoopReport>,
    /// For an operations game: its operations lowered to rules, the rules the ground program
    /// must mean.
    pub lowered: Option<Program>,
    /// The program actually grounded when local variables were projected into auxiliary
    /// relations ([`crate::program::project::project_locals`]); the ground program's atoms
    /// use its relation ids.
    pub projected: Option<Program>,
    /// The program actually grounded when some relations were restricted by demand
    /// ([`crate::analysis::demand`]): the projected one (or the lowered, or the original)
    /// with demand relations added after its own, which keep their ids.
    pub demanded: Option<Program>,
}

impl Grounded {
    /// The program whose relations the ground program's atoms belong to: `original`, an
    /// operations game's lowered program, the projected one or the one restricted by demand.
    pub fn program<'a>(&'a self, original: &'a Program) -> &'a Program {
        grounded_program(&self.stages(), original)
    }

    /// The programs grounding made of the original.
    fn stages(&self) -> [&Option<Program>; 3] {
        [&self.demanded, &self.projected, &self.lowered]
    }

    /// The rules the ground program must mean: `original`, or an operations game's lowered
    /// program (without projections, so that a reasoner over it checks them).
    pub fn source<'a>(&'a self, original: &'a Program) -> &'a Program {
        self.lowered.as_ref().unwrap_or(original)
    }
}

/// The programs grounding reads, and the encoding of their terms.
struct Prepared {
    /// An operations game's lowered program.
    lowered: Option<Program>,
    /// The program, when local variables were projected.
    projected: Option<Program>,
    /// The program grounded, when some relations were restricted by demand.
    demanded: Option<Program>,
    /// The encoding of the program grounded.
    encoding: Encoding,
}

impl Prepared {
    /// The program grounded.
    fn program<'a>(&'a self, original: &'a Program) -> &'a Program {
        grounded_program(&[&self.demanded, &self.projected, &self.lowered], original)
    }

    /// `self` with the ground game of its program.
    fn grounded(
        self,
        instantiation: Instantiation,
        ground: GroundProgram,
        reduction: Option<LoopReport>,
    ) -> Grounded {
        Grounded {
            encoding: self.encoding,
            instantiation,
            ground,
            reduction,
            lowered: self.lowered,
            projected: self.projected,
            demanded: self.demanded,
        }
    }
}

/// The program grounded from `original`: the last of the `stages` (latest first) that made
/// one, else `original`.
fn grounded_program<'a>(stages: &[&'a Option<Program>; 3], original: &'a Program) -> &'a Program {
    stages.iter().find_map(|s| s.as_ref()).unwrap_or(original)
}

/// Which superset of the reachable atoms the rules are instantiated over.
#[derive(Clone, Default)]
pub enum Superset {
    /// S*, the least fixpoint of the relaxed program (GDL.md §2): the default.
    #[default]
    Reachable,
    /// The fixpoint of the domain-graph reduction loop (⊇ S*), and by default the final
    /// reachability pass that brings it down to S*.
    DomainLoop(LoopOptions),
}

/// Why a game could not be grounded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroundError {
    /// The engine stopped.
    Engine(EngineError),
    /// The game model is not supported yet.
    Unsupported(String),
    /// The domain-graph reduction loop cannot run on this game.
    DomainLoop(String),
    /// A construct of the game that grounding does not handle, where it is.
    Located(Diagnostic),
}

/// Grounds `program` with `options` over S*.
pub fn ground(program: &Program, options: &Options) -> Result<Grounded, GroundError> {
    ground_with(program, options, &Superset::Reachable)
}

/// Grounds `program` with `options` over `superset`.
pub fn ground_with(
    program: &Program,
    options: &Options,
    superset: &Superset,
) -> Result<Grounded, GroundError> {
    if let Some(count) = first_count(program) {
        let message = "`countofall` is not grounded yet: no ground form for it is written";
        return Err(GroundError::Located(
            Diagnostic::error(Code::Unsupported, count, message).with_hint(
                "`gdlground check` reads the game; to ground it, write the count as rules",
            ),
        ));
    }
    let prepared = prepare(program, Steps::of(options), &mut Searches::default());
    if prepared.lowered.is_some() && matches!(superset, Superset::DomainLoop(_)) {
        return Err(GroundError::Unsupported(
            "the domain-graph loop reads `true` and `does`: it runs on classic games only".into(),
        ));
    }
    let (grounding, encoding) = (prepared.program(program), &prepared.encoding);
    let (instantiation, reduction) = match superset {
        Superset::Reachable => (
            engine::instantiate(grounding, encoding, options)
                .map_err(|e| too_large::located(e, grounding))?,
            None,
        ),
        Superset::DomainLoop(settings) => {
            let (i, report) = domain_loop::run(grounding, encoding, options, settings)?;
            (i, Some(report))
        }
    };
    if let Some(progress) = &options.progress {
        progress.enter(Stage::Ground);
    }
    let ground = GroundProgram::new(&instantiation, options.workers);
    Ok(prepared.grounded(instantiation, ground, reduction))
}

/// Where the first `countofall` of `program` is, if it has one.
fn first_count(program: &Program) -> Option<Span> {
    let rules = program.rules.iter().zip(&program.rule_origins);
    let operations = program.operations.iter().zip(&program.operation_origins);
    let bodies = (rules.map(|(r, o)| (&r.body[..], o)))
        .chain(operations.map(|(op, o)| (&op.conditions[..], o)));
    bodies.into_iter().find_map(|(body, origin)| {
        let i = body
            .iter()
            .position(|l| matches!(l, Literal::Count { .. }))?;
        Some(origin.literal_spans.get(i).copied().unwrap_or(origin.span))
    })
}

/// Which of the rewrites before the engine run (see [`prepare`]).
#[derive(Clone, Copy, Debug)]
struct Steps {
    /// Local variables projected ([`Options::project_locals`]).
    project: bool,
    /// Relations restricted by demand ([`Options::demand`]).
    demand: bool,
}

impl Steps {
    /// The steps `options` ask for.
    fn of(options: &Options) -> Steps {
        Steps {
            project: options.project_locals,
            demand: options.demand,
        }
    }
}

/// What grounding `program` reads: an operations game's operations lowered to rules, local
/// variables projected into auxiliary relations and relations restricted by demand when
/// `steps` say so (the projection reusing the `searches` of the last program prepared), and
/// the encoding of the program grounded.
fn prepare(program: &Program, steps: Steps, searches: &mut Searches) -> Prepared {
    let lowered = (program.model == Model::Operations).then(|| lower_operations(program));
    let projected = (steps.project)
        .then(|| project_locals_reusing(lowered.as_ref().unwrap_or(program), searches))
        .flatten();
    let demanded = (steps.demand)
        .then(|| demand::restrict(grounded_program(&[&None, &projected, &lowered], program)))
        .flatten();
    let encoding = Encoding::new(grounded_program(
        &[&demanded, &projected, &lowered],
        program,
    ));
    Prepared {
        lowered,
        projected,
        demanded,
        encoding,
    }
}

impl GroundError {
    /// The error as the user should see it, with a hint.
    pub fn render(&self, program: &Program, encoding: &Encoding) -> String {
        match self {
            GroundError::Unsupported(m) => format!("error: {m}\n"),
            GroundError::Located(d) => format!("error[{}]: {}\n", d.code.as_str(), d.message),
            GroundError::DomainLoop(m) => format!(
                "error: {m}\n  hint: the default `--superset reachable` needs no finite domains\n"
            ),
            GroundError::Engine(EngineError::TooDeep { relation, atom }) => {
                let mut text = String::new();
                AtomText::new(program, encoding, Notation::Kif).atom(*relation, atom, &mut text);
                format!(
                    "error: the relaxed closure of `{}` grows without bound: function terms nest deeper than the limit, as in\n  {text}\n  hint: a game whose terms grow needs `base`/`input` declarations to bound them; raise --max-depth if the depth is real\n",
                    program.relation_name(*relation)
                )
            }
            GroundError::Engine(EngineError::TooMuchMemory(limit)) => memory_error(*limit),
            GroundError::Engine(EngineError::TooLarge(large)) => format!("error: rule {} is expected to have {} instances, too many to ground\n", large.rule + 1, large.instances),
            GroundError::Engine(EngineError::TooManyAtoms) => "error: more atoms than --max-atoms allows\n  hint: raise --max-atoms if the machine has the memory\n".into(),
            GroundError::Engine(EngineError::Deadline) => DEADLINE_ERROR.into(),
            GroundError::Engine(EngineError::Worker(e)) => format!("error: a dataflow worker failed: {e}\n"),
            GroundError::Engine(EngineError::Unsupported(m)) => format!("error: {m}\n  hint: `gdlground ground` grounds it from scratch\n"),
            GroundError::Engine(EngineError::Cluster(m)) => format!("error: {m}\n  hint: see `gdlground ground --help` on -n, -p and --hostfile\n"),
        }
    }
}

/// The error of a grounding that passed its deadline.
pub const DEADLINE_ERROR: &str = "error: the deadline passed before grounding finished\n";

/// The error of a grounding that passed the memory limit of `limit` bytes, with its hint.
pub fn memory_error(limit: u64) -> String {
    format!(
        "error: grounding needs more than {}, the memory limit\n  hint: --max-memory raises it (the default is three quarters of the memory free when the run starts)\n",
        bytes(limit)
    )
}

/// A memory size for people: GiB with one decimal, MiB below 1 GiB.
fn bytes(n: u64) -> String {
    if n >= 1 << 30 {
        format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64)
    } else {
        format!("{} MiB", n >> 20)
    }
}
