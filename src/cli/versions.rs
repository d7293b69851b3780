//! The versions of the state a command names, for `history`, `--version V` and `restore`: the
//! backend's listing (S3 object versions, or the backups beside a local state), a `--version`
//! value resolved in it (an id `history` printed, or `~N` for N versions before the current one),
//! and that version's bytes read, decrypted and checked to be a state. An id the listing does not
//! hold, a delete marker, a backend that keeps no versions: each one line, exit 2.

use statectl_encryption::StateEncryption;

use crate::cli::error::{CliError, echo};
use crate::state::legacy::StateBytes;
use crate::state::source::Source;
use crate::state::store::LocalBackups;
use crate::state::store::versions::{Kept, StateVersions, Version};

/// The pages of a backend's version listing read at most: a thousand pages of a thousand versions,
/// far past any state's history.
pub(crate) const MAX_PAGES: u32 = statectl_backend::DEFAULT_MAX_PAGES;

/// Where a state's versions are read from.
pub(crate) enum Keeper<'a> {
    Remote(&'a dyn StateVersions),
    Local(LocalBackups),
}

impl Keeper<'_> {
    pub(crate) fn of(source: &Source) -> Result<Keeper<'_>, CliError> {
        match source {
            Source::Path(path) => Ok(Keeper::Local(LocalBackups::beside(path))),
            Source::Stdin => Err(CliError::new(
                "standard input has no versions: name the state file or its backend's URL",
            )),
            Source::Remote(backend) => backend.versions().map(Keeper::Remote).ok_or_else(|| {
                CliError::new(format!(
                    "{}: statectl does not read this backend's versions yet (it reads S3, Azure and OCI object versions, GCS generations, HCP Terraform state versions and local backups)",
                    backend.location()
                ))
            }),
        }
    }

    fn versions(&self) -> &dyn StateVersions {
        match self {
            Keeper::Remote(versions) => *versions,
            Keeper::Local(backups) => backups,
        }
    }

    /// The versions kept, or why none are.
    pub(crate) fn list(&self) -> Result<Kept, CliError> {
        Ok(self.versions().versions(MAX_PAGES)?)
    }

    /// The versions kept; a backend that keeps none is an error (the command needs one).
    pub(crate) fn list_required(&self) -> Result<(Vec<Version>, Vec<String>), CliError> {
        match self.list()? {
            Kept::Versions { versions, warnings } => Ok((versions, warnings)),
            Kept::Nothing { why, hint } => Err(CliError::said(&why, hint)),
        }
    }

    /// The stored bytes of `version`.
    pub(crate) fn read(&self, version: &Version) -> Result<Vec<u8>, CliError> {
        Ok(self.versions().version(&version.id)?)
    }
}

/// The version `spec` names among `versions` (newest first): an id, or `~N`, N versions before the
/// newest one that holds a state.
pub(crate) fn resolve<'v>(
    source: &Source,
    versions: &'v [Version],
    spec: &str,
) -> Result<&'v Version, CliError> {
    if let Some(back) = spec.strip_prefix('~') {
        let Ok(back) = back.parse::<usize>() else {
            return Err(CliError::new(format!(
                "`--version {}`: `~` takes a count of versions back, as `~1`",
                echo(spec)
            )));
        };
        let states: Vec<&Version> = versions.iter().filter(|version| !version.deleted).collect();
        return states.get(back).copied().ok_or_else(|| {
            CliError::new(format!(
                "{source}: there is no version `~{back}`: the backend keeps {} version{} with a state",
                states.len(),
                if states.len() == 1 { "" } else { "s" }
            ))
            .with_hint(format!("`statectl history {source}` lists them"))
        });
    }
    let version = versions
        .iter()
        .find(|version| version.id == spec)
        .ok_or_else(|| {
            let hint = if spec.starts_with('/') {
                // `--version ~0` (and `~1` after a `pushd`) is a directory to the shell.
                "the shell may have read `~N` as a directory: quote it, `--version '~1'`".to_owned()
            } else {
                format!(
                    "`statectl history {source}` lists the {} version{} kept, with their ids",
                    versions.len(),
                    if versions.len() == 1 { "" } else { "s" }
                )
            };
            CliError::new(format!(
                "{source}: there is no version `{}` of this state",
                echo(spec)
            ))
            .with_hint(hint)
        })?;
    if version.deleted {
        return Err(CliError::new(format!(
            "{source}: version `{}` is a delete marker: the state was deleted then, and it holds no state",
            echo(spec)
        ))
        .with_hint(format!(
            "choose a version before it; `statectl history {source}` lists them"
        )));
    }
    Ok(version)
}

/// The plaintext of the version `spec` names: listed, resolved, read, decrypted, and proven to be
/// a state (its error names the version). Returns the version too, for what it says about it.
pub(crate) fn read_version(
    source: &Source,
    spec: &str,
    encryption: &StateEncryption,
) -> Result<(Version, StateBytes), CliError> {
    let keeper = Keeper::of(source)?;
    let (versions, _) = keeper.list_required()?;
    let version = resolve(source, &versions, spec)?.clone();
    let bytes = read_checked(source, &keeper, &version, encryption)?;
    Ok((version, bytes))
}

/// A listed version's plaintext, not yet parsed (`history` parses it once, for its step).
pub(crate) fn read_plaintext(
    source: &Source,
    keeper: &Keeper<'_>,
    version: &Version,
    encryption: &StateEncryption,
) -> Result<StateBytes, CliError> {
    let stored = keeper.read(version)?;
    let plaintext = crate::cli::encryption::open(encryption, source, stored.into())?;
    Ok(StateBytes::new(plaintext))
}

/// A listed version's plaintext, proven to be a state.
pub(crate) fn read_checked(
    source: &Source,
    keeper: &Keeper<'_>,
    version: &Version,
    encryption: &StateEncryption,
) -> Result<StateBytes, CliError> {
    let bytes = read_plaintext(source, keeper, version, encryption)?;
    if let Err(error) = bytes.parse() {
        return Err(not_a_state(source, version, &error));
    }
    Ok(bytes)
}

/// The error for a version that does not parse as a state.
pub(crate) fn not_a_state(
    source: &Source,
    version: &Version,
    error: &crate::state::StateError,
) -> CliError {
    let mut error = CliError::state(source, error);
    let named = format!("{source} (version `{}`)", echo(&version.id));
    if let Some(rest) = error.message.strip_prefix(&source.to_string()) {
        error.message = format!("{named}{rest}");
    } else {
        error.message = format!("{named}: {}", error.message);
    }
    error
}
