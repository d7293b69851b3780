//! The states a many-state command (`scan`, `summary`) reads, its flags resolved: the key globs
//! compiled, the encryption configuration loaded, how many states are read at once. A bad glob or
//! encryption block stops here, before any state is listed or read.

use std::path::PathBuf;
use std::sync::Arc;

use statectl_encryption::StateEncryption;

use crate::cli::many::{Found, KeyArgs, KeyFilter};
use crate::cli::{BackendArgs, CliError, ConfigArgs, Printer};

/// The flags `scan` and `summary` share: which states, where, and how many at once.
#[derive(Debug, clap::Args)]
pub struct StatesArgs {
    /// State files, or folders searched recursively for `*.tfstate` (skipping `.terraform/`); several
    /// are read in one run. `-` reads standard input; URLs (`s3://bucket/key`, `gs://...`,
    /// `azurerm://...`, `oci://...`, `https://...`) read remote states, and a prefix URL ending in `/`
    /// (`s3://bucket/prefix/`) every state below it. Default: the state of the backend `terraform
    /// init` recorded here (local: `terraform.tfstate`).
    #[arg(value_name = "STATE")]
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub backend: BackendArgs,

    #[command(flatten)]
    pub config: ConfigArgs,

    #[command(flatten)]
    pub keys: KeyArgs,

    #[command(flatten)]
    pub version: crate::cli::VersionArg,

    /// How many states to read at once (default: the number of CPUs; remote states wait on the
    /// network, so more than that pays off with a prefix URL). Not `refresh --parallelism`, which
    /// counts the instances of one state.
    #[arg(long, short = 'j', visible_alias = "parallelism", value_name = "N", value_parser = crate::cli::settings::at_least_one)]
    pub jobs: Option<usize>,
}

/// [`StatesArgs`] resolved.
pub(crate) struct StatesSettings<'a> {
    pub paths: &'a [PathBuf],
    backend: &'a BackendArgs,
    keys: KeyFilter,
    pub encryption: Arc<StateEncryption>,
    /// `None`: the number of CPUs.
    pub jobs: Option<usize>,
    /// `--version`: the earlier version of the one state named, read instead of the current one.
    pub version: Option<&'a str>,
}

impl<'a> StatesSettings<'a> {
    pub(crate) fn resolve(args: &'a StatesArgs) -> Result<StatesSettings<'a>, CliError> {
        let named_one = names_one(&args.paths);
        if args.version.version.is_some() && !named_one {
            return Err(CliError::new(
                "`--version` reads an earlier version of one state, but several are named",
            )
            .with_hint("name one state file or URL (not a folder or a prefix)"));
        }
        Ok(StatesSettings {
            version: args.version.version.as_deref(),
            paths: &args.paths,
            backend: &args.backend,
            keys: KeyFilter::new(&args.keys)?,
            encryption: crate::cli::encryption::load(&args.config)?,
            jobs: args.jobs,
        })
    }

    /// The states to read, folders expanded and prefix URLs listed; no argument means the state
    /// `terraform init` recorded.
    pub(crate) fn sources(&self, printer: &mut Printer) -> Result<Vec<Found>, CliError> {
        crate::cli::many::sources(self.paths, self.backend, &self.keys, printer)
    }

    /// One state named on its own (or none: the working directory's), rather than several, a
    /// folder or a prefix URL.
    pub(crate) fn names_one(&self) -> bool {
        names_one(self.paths)
    }
}

/// Whether `paths` name one state (or none: the working directory's), rather than several, a
/// folder or a prefix URL.
fn names_one(paths: &[PathBuf]) -> bool {
    paths.len() <= 1 && !paths.iter().any(|path| path.is_dir())
}
