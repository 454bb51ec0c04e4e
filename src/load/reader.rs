//! Reading successive versions of one game (`watch`'s saves, an edit script's steps): a
//! statement whose text is unchanged since the last version is neither parsed nor lowered
//! again. Each version is split into its statements by their text
//! ([`crate::syntax::split`]); a statement not seen in the last version is parsed and lowered
//! on its own, and the lowered statements are joined in file order
//! ([`crate::program::Assembly`]) and checked as a whole. The game is the one [`load`] gives
//! for the same text: the same program, warnings and errors.

use super::{game, load, model_of, Game, LoadError};
use crate::hash::FastMap;
use crate::program::{lower_fragment, Assembly, Context, Fragment};
use crate::syntax::{self, split, Diagnostic, SourceFile, Statement, Syntax};

/// Reads versions of one game, remembering the statements of the last one by their text.
#[derive(Default)]
pub struct Reader {
    /// The syntax the remembered statements were read in.
    syntax: Option<Syntax>,
    /// The context their fragments were lowered in.
    context: Context,
    /// The statements of the last version read, by their text.
    known: FastMap<Box<str>, Piece>,
}

/// One statement's text, read: parsed with spans from its start, and lowered.
struct Piece {
    statements: Vec<Statement>,
    /// What the statements tell the lowering of the others.
    context: Context,
    /// The statements lowered in [`Reader::context`].
    fragment: Fragment,
}

impl Reader {
    /// A reader that remembers nothing yet.
    pub fn new() -> Reader {
        Reader::default()
    }

    /// Takes `game` (read in full) as the last version read, so that reading an edited
    /// version parses and lowers only its new statements.
    pub fn remember(&mut self, game: &Game) {
        // Its program is `game`'s; what counts is the statements it leaves remembered.
        let _ = self.read(game.source.clone(), game.syntax);
    }

    /// Reads `source` in `syntax`: the game [`load`] gives, or its error.
    pub fn read(&mut self, source: SourceFile, syntax: Syntax) -> Result<Game, LoadError> {
        if self.syntax != Some(syntax) {
            *self = Reader {
                syntax: Some(syntax),
                ..Reader::default()
            };
        }
        let model = model_of(syntax);
        // A text that does not split, or a statement that does not parse, is left to the
        // whole file's parse: only it reports syntax errors as they should be.
        let Some(ranges) = split::statements(&source.text, syntax) else {
            return load(source, syntax);
        };
        let mut known = FastMap::with_capacity_and_hasher(ranges.len(), Default::default());
        for range in &ranges {
            let text = &source.text[range.clone()];
            if known.contains_key(text) {
                continue;
            }
            let (text, piece) = match self.known.remove_entry(text) {
                Some(entry) => entry,
                None => match Piece::read(text, syntax, &self.context) {
                    Some(piece) => (Box::from(text), piece),
                    None => {
                        self.known.extend(known);
                        return load(source, syntax);
                    }
                },
            };
            known.insert(text, piece);
        }
        self.known = known;
        let mut context = Context::default();
        for piece in self.known.values() {
            context.extend(&piece.context);
        }
        if context != self.context {
            for piece in self.known.values_mut() {
                piece.fragment = lower_fragment(&piece.statements, &context, model);
            }
            self.context = context;
        }
        let mut assembly = Assembly::new(model);
        for range in &ranges {
            let piece = &self.known[&source.text[range.clone()]];
            assembly.add(&piece.fragment, range.start as u32);
        }
        let (program, diagnostics) = assembly.finish();
        game(source, syntax, program, diagnostics)
    }
}

impl Piece {
    /// Parses and lowers one statement's `text`; `None` if it has a syntax error.
    fn read(text: &str, syntax: Syntax, context: &Context) -> Option<Piece> {
        let parsed = syntax::parse_text(text, syntax);
        if parsed.diagnostics.iter().any(Diagnostic::is_error) {
            return None;
        }
        let model = model_of(syntax);
        let fragment = lower_fragment(&parsed.statements, context, model);
        Some(Piece {
            context: Context::of(&parsed.statements, model),
            statements: parsed.statements,
            fragment,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = "(role x) (init (c 1)) (succ 1 2) (succ 2 3)
(<= (next (c ?y)) (true (c ?x)) (succ ?x ?y) (distinct ?x 3))
(<= (legal x noop) (true (c ?x))) (<= terminal (true (c 3)))
(<= (goal x 100) (true (c 3)))
";

    /// What `load` gives for `text`: the program and warnings, or the rendered errors.
    fn loaded(text: &str) -> Result<(Program, Vec<Diagnostic>), String> {
        let game = load(SourceFile::new("g", text), Syntax::Kif).map_err(|e| e.render())?;
        Ok((game.program, game.warnings))
    }

    /// Reads `texts` in turn with one reader, checking each against `load`.
    fn read_like_load(texts: &[&str]) {
        let mut reader = Reader::new();
        for text in texts {
            let read = reader.read(SourceFile::new("g", *text), Syntax::Kif);
            let read = read
                .map(|g| (g.program, g.warnings))
                .map_err(|e| e.render());
            assert!(read == loaded(text), "{text}\nread: {read:?}");
        }
    }

    use crate::program::Program;

    #[test]
    fn edited_versions_read_as_load_reads_them() {
        let moved = GAME.replace("(succ 1 2) (succ 2 3)", "(succ 2 3)\n   (succ 1 2)");
        let changed = GAME.replace("(goal x 100)", "(goal x 50)");
        let clash = format!("{GAME}(<= (goal x) (succ 1 2))");
        let warned = format!("{GAME}(<= (q ?x) (succ ?x ?y))");
        read_like_load(&[GAME, &moved, &changed, &clash, GAME, &warned, &moved]);
    }

    #[test]
    fn a_new_definition_of_a_built_in_relowers_the_statements_that_read_it() {
        let defined = format!("{GAME}(<= (distinct ?x ?y) (succ ?x ?y))");
        read_like_load(&[GAME, &defined, GAME]);
    }

    #[test]
    fn syntax_errors_are_the_whole_files() {
        let broken = GAME.replace("(succ 2 3)", "(succ 2 3");
        let stray = GAME.replace("(succ 2 3)", "(succ 2 3))");
        let empty = GAME.replace("?y)) (true", "?)) (true");
        read_like_load(&[GAME, &broken, &stray, &empty, GAME]);
    }
}
