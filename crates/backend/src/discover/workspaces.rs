//! The workspaces of the backend `terraform init` recorded in a working directory, as `terraform
//! workspace list` names them: `default` first (always there, as Terraform lists it), then the
//! others in byte order. Each backend keeps its workspaces where Terraform's own puts them:
//! `local` in the folders of `workspace_dir` (`terraform.tfstate.d`), `s3` at
//! `<workspace_key_prefix>/<name>/<key>` (prefix `env:` by default), `gcs` at
//! `<prefix><name>.tfstate`, `azurerm` at `<key>env:<name>`, `oci` at
//! `<workspace_key_prefix>/<name>/<key>` (prefix `tf-state-env`); `http` has only `default`. The
//! remote listings are the bounded prefix listings `scan` uses (`crate::listing`). HCP Terraform's
//! (`cloud`, `remote`) are the organization's workspaces the block maps to (`crate::hcp`), without
//! a `default` unless `remote`'s `name` makes its one workspace that.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use statectl_state::state::store::{RemoteState, StoreError};

use super::{DEFAULT_WORKSPACE, recorded, valid_workspace};
use crate::config::BackendConfig;
use crate::hcp::mapped_workspaces;
use crate::listing::ListOptions;

/// A backend's workspaces.
#[derive(Debug, Clone)]
pub struct Workspaces {
    /// The backend's type (`local` when none is recorded).
    pub backend: String,
    /// `default`, then the others in byte order, each once.
    pub names: Vec<String>,
    /// What was odd about the listing (a server that went round, names Terraform would refuse),
    /// each line naming where.
    pub warnings: Vec<String>,
    /// How each listed workspace's state is opened (`None` for the local backend's files).
    pub states: Option<WorkspaceStates>,
}

/// Opens a listed workspace's state.
type OpenState = dyn Fn(&str) -> Result<Arc<dyn RemoteState>, StoreError> + Send + Sync;

/// The listed workspaces' states, each opened on the listing's one client: a glob over hundreds of
/// workspaces costs one runtime and one connection pool, not one of each per workspace (which met
/// the process's open-file limit). HCP Terraform's open by the ID the listing gave; the others at
/// the object the backend's settings name for the workspace, as `--workspace NAME` would.
#[derive(Clone)]
pub struct WorkspaceStates {
    /// Where `terraform init` recorded the backend, for the note naming each state.
    pub origin: String,
    open: Arc<OpenState>,
}

impl WorkspaceStates {
    /// The state of the listed workspace `name`.
    pub fn open(&self, name: &str) -> Result<Arc<dyn RemoteState>, StoreError> {
        (self.open)(name)
    }
}

impl std::fmt::Debug for WorkspaceStates {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("WorkspaceStates")
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// The workspaces of the backend recorded for `dir` (with `--backend-config` items applied), a
/// remote listing taking at most `max_pages` pages.
pub fn in_directory(
    dir: &Path,
    backend_config: &[String],
    max_pages: u32,
) -> Result<Workspaces, StoreError> {
    let config = match recorded(dir, backend_config)? {
        Some(config) if config.kind != "local" => config,
        Some(local_config) => return local(dir, &local_config.values, max_pages),
        None => return local(dir, &serde_json::Map::new(), max_pages),
    };
    let (prefix, name_of): (String, NameOf) = match config.kind.as_str() {
        "s3" => s3(&config),
        "gcs" => gcs(&config),
        "azurerm" => azurerm(&config),
        "oci" => oci(&config),
        "http" => {
            return Ok(Workspaces {
                backend: config.kind,
                names: vec![DEFAULT_WORKSPACE.to_owned()],
                warnings: Vec::new(),
                states: None,
            });
        }
        "cloud" | "remote" => {
            crate::secret_settings::register(&config);
            let mapped = mapped_workspaces(&config, max_pages)?;
            let mut workspaces = checked(
                &config.kind,
                &config.origin,
                mapped.names.iter().cloned(),
                false,
            );
            workspaces
                .warnings
                .splice(0..0, mapped.warnings.iter().cloned());
            workspaces.states = Some(WorkspaceStates {
                origin: config.origin.clone(),
                open: Arc::new(move |name| mapped.open(name)),
            });
            return Ok(workspaces);
        }
        other => {
            return Err(StoreError::new(format!(
                "{}: listing the workspaces of backend \"{other}\" is not supported",
                config.origin
            ))
            .with_hint("name one workspace with `--workspace NAME`, or each working directory"));
        }
    };
    let keep = |key: &str| name_of(key).is_some();
    let mut listing = crate::states_under(
        &config,
        &prefix,
        ListOptions {
            keep: &keep,
            max_pages,
        },
    )?;
    let names = listing.keys.iter().filter_map(|key| name_of(key));
    let mut workspaces = checked(&config.kind, &config.origin, names, true);
    workspaces
        .warnings
        .splice(0..0, std::mem::take(&mut listing.warnings));
    workspaces.states = Some(WorkspaceStates {
        origin: config.origin.clone(),
        open: Arc::new(move |name| {
            let mut config = config.clone();
            name.clone_into(&mut config.workspace);
            Ok(listing.open(&state_object(&config)?))
        }),
    });
    Ok(workspaces)
}

/// The object (key, blob) holding `config`'s workspace's state in its backend.
fn state_object(config: &BackendConfig) -> Result<String, StoreError> {
    match config.kind.as_str() {
        "s3" => crate::s3::S3State::state_object(config),
        "gcs" => crate::gcs::GcsState::state_object(config),
        "azurerm" => crate::azure::AzureState::state_object(config),
        "oci" => crate::oci::OciState::state_object(config),
        other => Err(StoreError::new(format!(
            "{}: backend \"{other}\" keeps no workspaces statectl can open",
            config.origin
        ))),
    }
}

/// How a listed key names its workspace: `None` for a key that is no workspace's state.
type NameOf = Box<dyn Fn(&str) -> Option<String> + Sync>;

/// A backend argument as text, or `default`.
fn text(values: &serde_json::Map<String, Value>, name: &str, default: &str) -> String {
    values
        .get(name)
        .and_then(Value::as_str)
        .map_or_else(|| default.to_owned(), ToOwned::to_owned)
}

/// s3: `<prefix>/<name>/<key>`, or `<name>/<key>` with an empty prefix.
fn s3(config: &BackendConfig) -> (String, NameOf) {
    let prefix = text(&config.values, "workspace_key_prefix", "env:");
    let key = text(&config.values, "key", "");
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{}/", prefix.trim_end_matches('/'))
    };
    (prefix.clone(), under_prefix(prefix, key))
}

/// `<prefix><name>/<key>`: the name is the one path segment between them.
fn under_prefix(prefix: String, key: String) -> NameOf {
    Box::new(move |listed: &str| {
        let (name, rest) = listed.strip_prefix(&prefix)?.split_once('/')?;
        (rest == key && !name.is_empty()).then(|| name.to_owned())
    })
}

/// gcs: `<prefix><name>.tfstate`, directly under the prefix (Terraform lists with the `/`
/// delimiter). The prefix is Terraform's: leading slashes dropped, a trailing one added.
fn gcs(config: &BackendConfig) -> (String, NameOf) {
    let prefix = text(&config.values, "prefix", "");
    let prefix = prefix.trim_start_matches('/');
    let prefix = if prefix.is_empty() || prefix.ends_with('/') {
        prefix.to_owned()
    } else {
        format!("{prefix}/")
    };
    let listed_under = prefix.clone();
    let name_of = move |listed: &str| {
        let name = listed
            .strip_prefix(&listed_under)?
            .strip_suffix(".tfstate")?;
        (!name.is_empty() && !name.contains('/')).then(|| name.to_owned())
    };
    (prefix, Box::new(name_of))
}

/// azurerm: `<key>env:<name>`, a name without `/`.
fn azurerm(config: &BackendConfig) -> (String, NameOf) {
    let prefix = format!("{}env:", text(&config.values, "key", ""));
    let listed_under = prefix.clone();
    let name_of = move |listed: &str| {
        let name = listed.strip_prefix(&listed_under)?;
        (!name.is_empty() && !name.contains('/')).then(|| name.to_owned())
    };
    (prefix, Box::new(name_of))
}

/// oci: `<workspace_key_prefix>/<name>/<key>`, the prefix `tf-state-env` by default.
fn oci(config: &BackendConfig) -> (String, NameOf) {
    let prefix = text(&config.values, "workspace_key_prefix", "tf-state-env");
    let key = text(&config.values, "key", "terraform.tfstate");
    let prefix = format!("{}/", prefix.trim_end_matches('/'));
    (prefix.clone(), under_prefix(prefix, key))
}

/// local: every folder of `workspace_dir` (`terraform.tfstate.d`) under `dir` is a workspace, as
/// Terraform's local backend lists them; no such folder, only `default`. At most `max_pages`
/// thousand entries are looked at.
fn local(
    dir: &Path,
    values: &serde_json::Map<String, Value>,
    max_pages: u32,
) -> Result<Workspaces, StoreError> {
    let folder = text(values, "workspace_dir", "");
    let folder = if folder.is_empty() {
        "terraform.tfstate.d".to_owned()
    } else {
        folder
    };
    let folder = dir.join(folder);
    let cannot = |error: &std::io::Error| {
        StoreError::new(format!(
            "{}: cannot list the workspaces: {}",
            folder.display(),
            statectl_state::state::source::problem(error)
        ))
    };
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(checked("local", "", std::iter::empty(), true));
        }
        Err(error) => return Err(cannot(&error)),
    };
    let most = u64::from(max_pages) * 1_000;
    let mut names = Vec::new();
    for (seen, entry) in entries.enumerate() {
        if seen as u64 >= most {
            return Err(StoreError::new(format!(
                "{}: more than {most} entries; statectl stopped listing the workspaces",
                folder.display()
            ))
            .with_hint("raise the limit with `--max-pages N` (a thousand entries a page)"));
        }
        let entry = entry.map_err(|error| cannot(&error))?;
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    Ok(checked(
        "local",
        &folder.display().to_string(),
        names.into_iter(),
        true,
    ))
}

/// The names listed, sorted, each once, after `default` when the backend always has it
/// (`with_default`); a name Terraform would refuse (no state of Terraform's can have it) is left
/// out with a warning naming `origin`.
fn checked(
    backend: &str,
    origin: &str,
    names: impl Iterator<Item = String>,
    with_default: bool,
) -> Workspaces {
    let mut kept = std::collections::BTreeSet::new();
    let mut refused = 0_u64;
    for name in names {
        if with_default && name == DEFAULT_WORKSPACE {
            continue;
        }
        if valid_workspace(&name, origin).is_ok() {
            kept.insert(name);
        } else {
            refused += 1;
        }
    }
    let mut warnings = Vec::new();
    if refused > 0 {
        warnings.push(format!(
            "{origin}: {refused} listed name{} not a valid workspace name, left out",
            if refused == 1 { " is" } else { "s are" }
        ));
    }
    let default = with_default.then(|| DEFAULT_WORKSPACE.to_owned());
    Workspaces {
        backend: backend.to_owned(),
        names: default.into_iter().chain(kept).collect(),
        warnings,
        states: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A backend's keys and the workspace each names (`None`: no workspace's state).
    type Case = (
        &'static str,
        Value,
        &'static str,
        &'static [(&'static str, Option<&'static str>)],
    );

    /// The listing prefix and key-to-name rule of a listed backend's `config`.
    fn layout(config: &BackendConfig) -> (String, NameOf) {
        match config.kind.as_str() {
            "s3" => s3(config),
            "gcs" => gcs(config),
            "azurerm" => azurerm(config),
            _ => oci(config),
        }
    }

    fn config(kind: &str, values: &Value) -> BackendConfig {
        BackendConfig {
            kind: kind.to_owned(),
            values: values.as_object().unwrap().clone(),
            workspace: DEFAULT_WORKSPACE.to_owned(),
            origin: ".terraform/terraform.tfstate".to_owned(),
        }
    }

    #[test]
    fn keys_name_workspaces_where_each_backend_puts_them() {
        let cases: [Case; 6] = [
            (
                "s3",
                serde_json::json!({"bucket": "b", "key": "app/terraform.tfstate"}),
                "env:/",
                &[
                    ("env:/prod/app/terraform.tfstate", Some("prod")),
                    ("env:/prod/other.tfstate", None),
                    ("env:/a/b/app/terraform.tfstate", None),
                    ("env://app/terraform.tfstate", None),
                ],
            ),
            (
                "s3",
                serde_json::json!({"bucket": "b", "key": "k", "workspace_key_prefix": "ws"}),
                "ws/",
                &[("ws/dev/k", Some("dev")), ("ws/dev/k.tflock", None)],
            ),
            (
                "s3",
                serde_json::json!({"bucket": "b", "key": "k", "workspace_key_prefix": ""}),
                "",
                &[("dev/k", Some("dev")), ("k", None)],
            ),
            (
                "gcs",
                serde_json::json!({"bucket": "b", "prefix": "/team/app"}),
                "team/app/",
                &[
                    ("team/app/prod.tfstate", Some("prod")),
                    ("team/app/prod.tflock", None),
                    ("team/app/x/prod.tfstate", None),
                ],
            ),
            (
                "azurerm",
                serde_json::json!({"key": "prod.tfstate"}),
                "prod.tfstateenv:",
                &[
                    ("prod.tfstateenv:dev", Some("dev")),
                    ("prod.tfstateenv:a/b", None),
                ],
            ),
            (
                "oci",
                serde_json::json!({"bucket": "b", "namespace": "n"}),
                "tf-state-env/",
                &[
                    ("tf-state-env/dev/terraform.tfstate", Some("dev")),
                    ("tf-state-env/dev/terraform.tfstate.lock", None),
                ],
            ),
        ];
        for (kind, values, listed_prefix, keys) in cases {
            let config = config(kind, &values);
            let (prefix, name_of) = layout(&config);
            assert_eq!(prefix, listed_prefix, "{kind}");
            for (key, name) in keys {
                assert_eq!(name_of(key).as_deref(), *name, "{kind}: {key}");
            }
        }
    }

    /// The object a workspace's state is opened at is the one the listing names it by, and
    /// `default`'s is the configuration's own.
    #[test]
    fn each_workspace_opens_at_the_object_the_listing_names_it_by() {
        let cases = [
            (
                "s3",
                serde_json::json!({"bucket": "b", "key": "app/terraform.tfstate", "region": "us-east-1"}),
                "app/terraform.tfstate",
            ),
            (
                "s3",
                serde_json::json!({"bucket": "b", "key": "k", "workspace_key_prefix": "", "region": "us-east-1"}),
                "k",
            ),
            (
                "gcs",
                serde_json::json!({"bucket": "b", "prefix": "/team/app", "access_token": "t"}),
                "team/app/default.tfstate",
            ),
            (
                "azurerm",
                serde_json::json!({"storage_account_name": "a", "container_name": "c", "key": "prod.tfstate", "access_key": "a2V5"}),
                "prod.tfstate",
            ),
            (
                "oci",
                serde_json::json!({"bucket": "b", "namespace": "n", "region": "us-ashburn-1"}),
                "terraform.tfstate",
            ),
        ];
        for (kind, values, default_object) in cases {
            let mut config = config(kind, &values);
            assert_eq!(state_object(&config).unwrap(), default_object, "{kind}");
            let (_, name_of) = layout(&config);
            for name in ["dev", "prod-eu"] {
                config.workspace = name.to_owned();
                let object = state_object(&config).unwrap();
                assert_eq!(name_of(&object).as_deref(), Some(name), "{kind}: {object}");
            }
        }
        let http = config("http", &serde_json::json!({"address": "http://x"}));
        assert!(state_object(&http).is_err());
    }

    #[test]
    fn local_workspaces_are_the_folders_of_the_workspace_dir() {
        let dir = tempfile::tempdir().unwrap();
        let none = local(dir.path(), &serde_json::Map::new(), 1).unwrap();
        assert_eq!(none.names, ["default"]);
        for name in ["prod", "dev", "default"] {
            std::fs::create_dir_all(dir.path().join("terraform.tfstate.d").join(name)).unwrap();
        }
        std::fs::write(dir.path().join("terraform.tfstate.d/file"), "").unwrap();
        let listed = local(dir.path(), &serde_json::Map::new(), 1).unwrap();
        assert_eq!(listed.names, ["default", "dev", "prod"]);
        assert!(listed.warnings.is_empty());
        let mut values = serde_json::Map::new();
        values.insert("workspace_dir".into(), "elsewhere".into());
        std::fs::create_dir_all(dir.path().join("elsewhere/a b")).unwrap();
        let odd = local(dir.path(), &values, 1).unwrap();
        assert_eq!(odd.names, ["default"]);
        assert_eq!(odd.warnings.len(), 1, "{:?}", odd.warnings);
    }
}
