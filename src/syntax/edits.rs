//! Edit scripts: scripted sequences of rule edits to a game's text (`ground --edits`), in
//! the format of docs/edits.md.
//!
//! A script is a list of edits; an edit removes statements (`- STATEMENT`) and adds
//! statements (`+ STATEMENT`), written in the game's own syntax. An edit applies to the text:
//! each removed statement is the first statement of the game whose text equals it (runs of
//! whitespace count as one space), cut out; the edit's first added statement takes the place
//! of its first removed one, the second of the second, and so on, and added statements past
//! the removed ones go at the end, one per line. A changed rule is a removal and an addition,
//! and stays where it was, as it does when an author edits the file.

use super::{parse, SourceFile, Syntax};

/// One edit of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// Its label (the text after `=`), or its number.
    pub label: String,
    /// Statements removed, each with its line in the script.
    pub remove: Vec<(usize, String)>,
    /// Statements added.
    pub add: Vec<String>,
}

/// Reads the edit script `file`; an error names the line and says what is wrong.
pub fn parse_script(file: &SourceFile) -> Result<Vec<Edit>, String> {
    let mut edits: Vec<Edit> = Vec::new();
    // Which statement a continuation line extends: (removal?, index).
    let mut last: Option<bool> = None;
    for (i, line) in file.text.lines().enumerate() {
        let number = i + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(label) = line.strip_prefix('=') {
            edits.push(Edit {
                label: label.trim().to_string(),
                remove: Vec::new(),
                add: Vec::new(),
            });
            last = None;
            continue;
        }
        if edits.is_empty() {
            edits.push(Edit {
                label: String::new(),
                remove: Vec::new(),
                add: Vec::new(),
            });
        }
        let edit = edits.last_mut().expect("an edit");
        if let Some(statement) = line.strip_prefix("- ") {
            edit.remove.push((number, statement.to_string()));
            last = Some(true);
        } else if let Some(statement) = line.strip_prefix("+ ") {
            edit.add.push(statement.to_string());
            last = Some(false);
        } else if line.starts_with(char::is_whitespace) && last.is_some() {
            let text = match last {
                Some(true) => edit.remove.last_mut().map(|r| &mut r.1),
                _ => edit.add.last_mut(),
            };
            if let Some(text) = text {
                text.push('\n');
                text.push_str(line);
            }
        } else {
            return Err(format!(
                "{}:{number}:1: error: an edit line starts with `- ` (remove), `+ ` (add), `=` (a new edit), `#` (a comment) or whitespace (continuing the statement above)\n  hint: see docs/edits.md\n",
                file.name
            ));
        }
    }
    for (n, edit) in edits.iter_mut().enumerate() {
        if edit.label.is_empty() {
            edit.label = format!("edit {}", n + 1);
        }
    }
    Ok(edits)
}

/// `text` (a game in `syntax`) with `edit` applied; an error names the script line of a
/// statement the game does not have.
pub fn apply(text: &str, syntax: Syntax, edit: &Edit, script: &str) -> Result<String, String> {
    let game = SourceFile::new("game", text);
    let statements = parse(&game, syntax).statements;
    // Each removed statement's range in the text, and which removal it is.
    let mut cut: Vec<(usize, usize, usize)> = Vec::new();
    for (i, (line, removed)) in edit.remove.iter().enumerate() {
        let wanted = normal(removed);
        let found = statements.iter().map(|s| s.span()).find(|span| {
            let (start, end) = (span.start as usize, span.end as usize);
            !cut.iter().any(|c| (c.0, c.1) == (start, end)) && normal(&text[start..end]) == wanted
        });
        match found {
            Some(span) => cut.push((span.start as usize, span.end as usize, i)),
            None => {
                return Err(format!(
                    "{script}:{line}:3: error: {}: the game has no statement `{}`\n  hint: a removed statement must equal one of the game's (whitespace aside), as it stands after the edits before this one\n",
                    edit.label,
                    wanted
                ))
            }
        }
    }
    cut.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end, i) in cut {
        out.push_str(&text[at..start]);
        out.push_str(edit.add.get(i).map_or("", |s| s.as_str()));
        at = end;
    }
    out.push_str(&text[at..]);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    for added in edit.add.iter().skip(edit.remove.len()) {
        out.push_str(added);
        out.push('\n');
    }
    Ok(out)
}

/// `text` with runs of whitespace as one space, trimmed.
fn normal(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_removes_and_adds_statements() {
        let script = SourceFile::new(
            "e.txt",
            "# two edits\n= goal\n- (<= (goal r 50)\n    (p))\n+ (<= (goal r 40) (p))\n=\n+ (q)\n",
        );
        let edits = parse_script(&script).unwrap();
        assert_eq!(edits.len(), 2);
        assert_eq!(edits[1].label, "edit 2");
        let game = "(role r)\n(<= (goal r 50) (p))\n(p)\n";
        let once = apply(game, Syntax::Kif, &edits[0], "e.txt").unwrap();
        assert_eq!(once, "(role r)\n(<= (goal r 40) (p))\n(p)\n");
        let two = Edit {
            label: "two".into(),
            remove: vec![(1, "(p)".into()), (2, "(role r)".into())],
            add: vec!["(q)".into(), "(role s)".into(), "(t)".into()],
        };
        let twice = apply(game, Syntax::Kif, &two, "e.txt").unwrap();
        assert_eq!(twice, "(role s)\n(<= (goal r 50) (p))\n(q)\n(t)\n");
        let cut = Edit {
            add: Vec::new(),
            ..two
        };
        assert_eq!(
            apply(game, Syntax::Kif, &cut, "e.txt").unwrap(),
            "\n(<= (goal r 50) (p))\n\n"
        );
        let error = apply(game, Syntax::Kif, &edits[1], "e.txt").map(|t| t.contains("(q)"));
        assert_eq!(error, Ok(true));
        let missing = apply(&once, Syntax::Kif, &edits[0], "e.txt").unwrap_err();
        assert!(
            missing.starts_with(
                "e.txt:3:3: error: goal: the game has no statement `(<= (goal r 50) (p))`"
            ),
            "{missing}"
        );
        let bad = SourceFile::new("e.txt", "= x\n(p)\n");
        assert!(parse_script(&bad)
            .unwrap_err()
            .starts_with("e.txt:2:1: error"));
    }
}
