//! Variable names that are legal and distinct in the target syntax.

use super::Notation;

/// Legal, pairwise distinct spellings of a rule's variables, by `VarId`.
///
/// KIF variables are lower case (KIF folds case, so `X` and `x` would merge); infix variables
/// start with an upper-case letter. Characters outside `[A-Za-z0-9_]` become `_`, and a
/// clash after that gets a numeric suffix.
pub fn variable_names(names: &[String], notation: Notation) -> Vec<String> {
    let mut taken = std::collections::HashSet::new();
    names
        .iter()
        .map(|name| {
            let mut base: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            match notation {
                Notation::Kif => base = base.to_lowercase(),
                Notation::Infix => {
                    let first = base.chars().next().unwrap_or('V');
                    if first.is_ascii_lowercase() {
                        base.replace_range(..1, &first.to_ascii_uppercase().to_string());
                    } else if !(first.is_ascii_uppercase() || first == '_') {
                        base.insert(0, 'V');
                    }
                }
            }
            if base.is_empty() {
                base.push('v');
            }
            let mut candidate = base.clone();
            let mut n = 1;
            while !taken.insert(candidate.clone()) {
                candidate = format!("{base}_{n}");
                n += 1;
            }
            candidate
        })
        .collect()
}
