//! The state a command means: a file, standard input, the URL of a remote state, or (with no
//! argument) the state of the backend `terraform init` recorded in the working directory, in the
//! selected workspace, as `terraform state pull` would find it.

use std::path::Path;

use statectl_backend::discover::{self, Found, Overrides};

use crate::cli::BackendArgs;
use crate::cli::error::CliError;
use crate::state::source::Source;

/// A state's source, and the note that names it when the user did not (or named a URL).
#[derive(Debug, Clone)]
pub(crate) struct Located {
    pub source: Source,
    pub note: Option<String>,
}

/// Resolves the state argument and the backend flags into a source.
pub(crate) fn locate(arg: Option<&Path>, backend: &BackendArgs) -> Result<Located, CliError> {
    let overrides = overrides(backend);
    let Some(arg) = arg else {
        return discovered(Path::new("."), &overrides);
    };
    let text = arg.to_string_lossy();
    if let Some(config) = discover::from_url(&text, &overrides)? {
        let state = statectl_backend::open(&config)?;
        let note = format!("state {} (backend \"{}\")", state.location(), config.kind);
        return Ok(Located {
            source: Source::Remote(state),
            note: Some(note),
        });
    }
    if !overrides.is_empty() {
        return Err(CliError::new(format!(
            "`--workspace` and `--backend-config` choose a backend's state, but `{}` is a file",
            crate::cli::error::sanitize(&text)
        ))
        .with_hint("leave the state argument out to use the backend `terraform init` recorded here, or give a URL (`s3://bucket/key`)"));
    }
    Ok(Located {
        source: Source::from_arg(Some(arg)),
        note: None,
    })
}

/// The backend flags as discovery takes them.
pub(crate) fn overrides(backend: &BackendArgs) -> Overrides {
    Overrides {
        workspace: backend.workspace.clone(),
        backend_config: backend.backend_config.clone(),
    }
}

/// The state `terraform init` recorded in the working directory `dir` (`drift DIR...`).
pub(crate) fn locate_in(dir: &Path, backend: &BackendArgs) -> Result<Located, CliError> {
    discovered(dir, &overrides(backend))
}

/// The state `terraform init` recorded for the working directory `dir`.
fn discovered(dir: &Path, overrides: &Overrides) -> Result<Located, CliError> {
    match discover::in_directory(dir, overrides)? {
        Found::Local { path, how } => Ok(Located {
            note: how.map(|how| format!("state {} ({how})", path.display())),
            source: Source::Path(path),
        }),
        Found::Remote(config) => {
            let state = statectl_backend::open(&config)?;
            let note = format!(
                "state {} (backend \"{}\" from {}, workspace \"{}\")",
                state.location(),
                config.kind,
                config.origin,
                config.workspace
            );
            Ok(Located {
                source: Source::Remote(state),
                note: Some(note),
            })
        }
    }
}
