//! `statectl drift --workspace GLOB`: the workspaces of each working directory's backend (as
//! `terraform workspace list` names them, listed by `statectl_backend::discover::workspaces`) that
//! the glob matches, each one a state to check with the directory's configuration. A name without
//! `*` or `?` is no glob: `--workspace NAME` keeps its meaning.

use std::path::{Path, PathBuf};

use statectl_analysis::glob::Glob;
use statectl_backend::discover::workspaces;

use crate::cli::BackendArgs;
use crate::cli::error::{CliError, echo};
use crate::cli::settings::drift::Target;
use crate::cli::state_source::{Located, locate_in};
use crate::state::source::Source;

/// How many workspace names the hint of a glob that matched none shows.
const SHOWN: usize = 10;

/// `--workspace`'s value when it is a glob.
pub(super) fn glob_of(backend: &BackendArgs) -> Option<&str> {
    backend
        .workspace
        .as_deref()
        .filter(|workspace| Glob::is_glob(workspace))
}

/// The states of the workspaces `glob` matches in each of `dirs` (`config`: where each one's
/// providers come from), and the listings' warnings.
pub(super) fn targets(
    glob: &str,
    dirs: &[(PathBuf, Option<PathBuf>)],
    backend: &BackendArgs,
    max_pages: u32,
) -> Result<(Vec<Target>, Vec<String>), CliError> {
    let pattern = Glob::new(glob);
    let mut targets = Vec::new();
    let mut warnings = Vec::new();
    for (dir, config) in dirs {
        let listed = workspaces::in_directory(dir, &backend.backend_config, max_pages)?;
        warnings.extend(listed.warnings.iter().cloned());
        let chosen: Vec<&String> = listed
            .names
            .iter()
            .filter(|name| pattern.matches(name))
            .collect();
        if chosen.is_empty() {
            return Err(no_match(glob, dir, &listed));
        }
        for name in chosen {
            // A remote backend's workspaces share the listing's client; local ones are files.
            let located = if let Some(states) = &listed.states {
                let state = states.open(name)?;
                let note = format!(
                    "state {} (backend \"{}\" from {}, workspace \"{name}\")",
                    state.location(),
                    listed.backend,
                    states.origin
                );
                Located {
                    source: Source::Remote(state),
                    note: Some(note),
                }
            } else {
                let one = BackendArgs {
                    workspace: Some(name.clone()),
                    backend_config: backend.backend_config.clone(),
                };
                locate_in(dir, &one)?
            };
            targets.push(Target {
                source: located.source,
                note: located.note,
                config: config.clone(),
                workspace: Some(name.clone()),
            });
        }
    }
    Ok((targets, warnings))
}

/// A glob that matched no workspace: the glob, the backend, and the workspaces there are.
fn no_match(glob: &str, dir: &Path, listed: &workspaces::Workspaces) -> CliError {
    let place = if dir == Path::new(".") {
        String::new()
    } else {
        format!(" in {}", echo(&dir.display().to_string()))
    };
    let shown: Vec<&str> = listed
        .names
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect();
    let rest = listed.names.len().saturating_sub(SHOWN);
    let more = if rest > 0 {
        format!(" and {rest} more ({} in all)", listed.names.len())
    } else {
        String::new()
    };
    let plural = if listed.names.len() == 1 { "" } else { "s" };
    CliError::new(format!(
        "`--workspace {}` matches no workspace of backend \"{}\"{place}",
        echo(glob),
        listed.backend
    ))
    .with_hint(format!(
        "the workspace{plural} there: {}{more}",
        shown
            .iter()
            .map(|name| echo(name))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_name_with_a_wildcard_is_a_glob() {
        let backend = |name: &str| BackendArgs {
            workspace: Some(name.to_owned()),
            backend_config: Vec::new(),
        };
        assert_eq!(glob_of(&backend("prod-*")), Some("prod-*"));
        assert_eq!(glob_of(&backend("prod-?")), Some("prod-?"));
        assert_eq!(glob_of(&backend("prod")), None);
        assert_eq!(glob_of(&BackendArgs::default()), None);
    }

    #[test]
    fn a_glob_matching_none_names_the_first_workspaces_and_the_count() {
        let listed = workspaces::Workspaces {
            backend: "s3".to_owned(),
            names: (0..12).map(|n| format!("w{n:02}")).collect(),
            warnings: Vec::new(),
            states: None,
        };
        let error = no_match("prod-*", Path::new("envs/a"), &listed);
        assert_eq!(
            error.message,
            "`--workspace prod-*` matches no workspace of backend \"s3\" in envs/a"
        );
        assert_eq!(
            error.hint.as_deref(),
            Some(
                "the workspaces there: w00, w01, w02, w03, w04, w05, w06, w07, w08, w09 and 2 more (12 in all)"
            )
        );
    }
}
