//! Which state a command means when it names none: the backend `terraform init` recorded in the data
//! directory's backend cache, and the selected workspace, as Terraform finds them. Also the URLs a
//! user may give instead (`s3://bucket/key`, `https://...`), and `--backend-config` over either.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use statectl_state::state::store::StoreError;

use crate::config::{BackendConfig, env};

/// The workspace Terraform uses when none is selected.
pub const DEFAULT_WORKSPACE: &str = "default";

/// What the user said about the backend on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--workspace NAME`: over `TF_WORKSPACE` and `.terraform/environment`.
    pub workspace: Option<String>,
    /// `--backend-config KEY=VALUE` or `--backend-config FILE`, in order, as `terraform init` takes them.
    pub backend_config: Vec<String>,
}

impl Overrides {
    pub fn is_empty(&self) -> bool {
        self.workspace.is_none() && self.backend_config.is_empty()
    }
}

/// Where the state is.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// A local file: the local backend's state for the workspace, or `terraform.tfstate`.
    Local {
        path: PathBuf,
        /// How it was found, for the note naming it (`None` for the plain default file).
        how: Option<String>,
    },
    /// A remote backend's state.
    Remote(BackendConfig),
}

/// The state that `terraform state pull` would print in `dir`: the backend recorded by `terraform
/// init` (in `TF_DATA_DIR`, else `.terraform`), the selected workspace, the overrides applied.
pub fn in_directory(dir: &Path, overrides: &Overrides) -> Result<Found, StoreError> {
    let workspace = selected_workspace(&data_dir(dir), overrides)?;
    let Some(mut config) = recorded(dir, &overrides.backend_config)? else {
        return Ok(local_state(dir, &Map::new(), &workspace, None));
    };
    config.workspace = workspace;
    if config.kind == "local" {
        return Ok(local_state(
            dir,
            &config.values,
            &config.workspace,
            Some(&config.origin),
        ));
    }
    Ok(Found::Remote(config))
}

/// The data directory of `dir`: `TF_DATA_DIR`, else `.terraform`.
fn data_dir(dir: &Path) -> PathBuf {
    dir.join(env("TF_DATA_DIR").unwrap_or_else(|| ".terraform".to_owned()))
}

/// The backend `terraform init` recorded for `dir`, `--backend-config` items applied, at the
/// default workspace; `None` when none is recorded (the local default).
fn recorded(dir: &Path, backend_config: &[String]) -> Result<Option<BackendConfig>, StoreError> {
    let cache_path = data_dir(dir).join("terraform.tfstate");
    let cache = match std::fs::read(&cache_path) {
        Ok(bytes) => Some(bytes),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => {
            return Err(StoreError::new(format!(
                "{}: cannot read the backend cache: {}",
                cache_path.display(),
                statectl_state::state::source::problem(&error)
            )));
        }
    };
    let origin = relative(dir, &cache_path);
    let recorded = match cache {
        Some(bytes) => parse_cache(&origin, &bytes)?,
        None => None,
    };
    let Some((kind, values)) = recorded else {
        if !backend_config.is_empty() {
            return Err(StoreError::new(
                "`--backend-config` needs a backend: this directory has none recorded by `terraform init`",
            )
            .with_hint("run `terraform init` here, or name the state as a URL (`s3://bucket/key`)"));
        }
        return Ok(None);
    };
    let mut config = BackendConfig {
        kind,
        values,
        workspace: DEFAULT_WORKSPACE.to_owned(),
        origin,
    };
    apply_overrides(&mut config, backend_config, true)?;
    Ok(Some(config))
}

/// The configuration a URL names: `s3://bucket/key` for the s3 backend, `gs://bucket/prefix/name.tfstate`
/// for the gcs backend, `http://` or `https://` for the http backend; `None` for anything else (a
/// local path).
pub fn from_url(url: &str, overrides: &Overrides) -> Result<Option<BackendConfig>, StoreError> {
    // A gs:// URL names the workspace's object itself.
    let mut named_workspace = None;
    let (kind, values) = if let Some(rest) = url.strip_prefix("s3://") {
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() || key.is_empty() || key.ends_with('/') {
            return Err(StoreError::new(format!(
                "{url}: an S3 state URL names a bucket and an object key"
            ))
            .with_hint("for example `s3://my-bucket/path/to/terraform.tfstate`; `statectl scan` and `statectl summary` also take a prefix ending in `/`"));
        }
        ("s3", url_values(&[("bucket", bucket), ("key", key)]))
    } else if let Some(rest) = url.strip_prefix("gs://") {
        let (values, workspace) = crate::gcs::url::state(url, rest)?;
        named_workspace = Some(workspace);
        ("gcs", values)
    } else if let Some(rest) = url.strip_prefix("azurerm://") {
        ("azurerm", azurerm_values(url, rest)?)
    } else if let Some(rest) = url.strip_prefix("oci://") {
        ("oci", crate::oci::url::values(url, rest)?)
    } else if url.starts_with("http://") || url.starts_with("https://") {
        ("http", url_values(&[("address", url)]))
    } else {
        return Ok(None);
    };
    let workspace = match (&overrides.workspace, named_workspace) {
        (Some(name), Some(named)) if *name != named => {
            return Err(StoreError::new(format!(
                "{}: the URL names workspace `{named}`'s state, not `{name}`'s",
                redact(url)
            ))
            .with_hint("drop `--workspace`, or name that workspace's object in the URL"));
        }
        (_, Some(named)) => valid_workspace(&named, &redact(url))?,
        (Some(name), None) => valid_workspace(name, "--workspace")?,
        (None, None) => DEFAULT_WORKSPACE.to_owned(),
    };
    let mut config = BackendConfig {
        kind: kind.to_owned(),
        values,
        workspace,
        origin: redact(url),
    };
    apply_overrides(&mut config, &overrides.backend_config, false)?;
    Ok(Some(config))
}

/// A URL naming many states, for `scan` and `summary`: `s3://bucket/` or `s3://bucket/prefix/`
/// (ending in `/`), `gs://bucket/prefix/`, `azurerm://account/container/prefix/` or
/// `oci://namespace/bucket/prefix/`, with the configuration to list them by and the key prefix;
/// `None` for any other argument.
pub fn listing_from_url(
    url: &str,
    overrides: &Overrides,
) -> Result<Option<(BackendConfig, String)>, StoreError> {
    if let Some(rest) = url.strip_prefix("oci://") {
        return crate::oci::url::listing(url, rest, overrides);
    }
    if let Some(rest) = url.strip_prefix("gs://") {
        let Some((bucket, prefix)) = crate::gcs::url::listing(rest) else {
            return Ok(None);
        };
        // Each listed object is a state of its own; the workspace object only completes the URL.
        let Some(mut config) =
            from_url(&format!("gs://{bucket}/{prefix}default.tfstate"), overrides)?
        else {
            return Ok(None);
        };
        config.origin = redact(url);
        return Ok(Some((config, prefix.to_owned())));
    }
    if let Some(rest) = url.strip_prefix("azurerm://") {
        // `azurerm://account/container/prefix/`: the key is a placeholder, as for S3.
        let mut parts = rest.splitn(3, '/');
        let (Some(account), Some(container)) = (parts.next(), parts.next()) else {
            return Ok(None);
        };
        let prefix = parts.next().unwrap_or("");
        if !(prefix.is_empty() || prefix.ends_with('/')) {
            return Ok(None);
        }
        let probe = format!("azurerm://{account}/{container}/{prefix}terraform.tfstate");
        let Some(mut config) = from_url(&probe, overrides)? else {
            return Ok(None);
        };
        config.origin = redact(url);
        return Ok(Some((config, prefix.to_owned())));
    }
    let Some(rest) = url.strip_prefix("s3://") else {
        return Ok(None);
    };
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() || !(prefix.is_empty() || prefix.ends_with('/')) {
        return Ok(None);
    }
    // The key is the backend's to need; a listing names each state's own key afterwards.
    let key = format!("{prefix}terraform.tfstate");
    let Some(mut config) = from_url(&format!("s3://{bucket}/{key}"), overrides)? else {
        return Ok(None);
    };
    config.origin = redact(url);
    Ok(Some((config, prefix.to_owned())))
}

/// The selected workspace: `--workspace`, else `TF_WORKSPACE`, else the data directory's
/// `environment` file, else `default`; a name Terraform would refuse is refused.
fn selected_workspace(data_dir: &Path, overrides: &Overrides) -> Result<String, StoreError> {
    if let Some(name) = &overrides.workspace {
        return valid_workspace(name, "--workspace");
    }
    if let Some(name) = env("TF_WORKSPACE") {
        return valid_workspace(&name, "TF_WORKSPACE");
    }
    let file = data_dir.join("environment");
    let name = std::fs::read_to_string(&file).unwrap_or_default();
    let name = name.trim();
    if name.is_empty() {
        return Ok(DEFAULT_WORKSPACE.to_owned());
    }
    valid_workspace(name, &file.display().to_string())
}

/// Terraform's rule: a workspace name is one that URL path escaping leaves as it is.
fn valid_workspace(name: &str, from: &str) -> Result<String, StoreError> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_.~$&+,:;=@".contains(c);
    if name.is_empty() || !name.chars().all(plain) {
        return Err(StoreError::new(format!(
            "{from}: `{name}` is not a valid workspace name"
        ))
        .with_hint("workspace names use letters, digits and `-_.~$&+,:;=@`; `terraform workspace list` shows them"));
    }
    Ok(name.to_owned())
}

/// A recorded backend: its type and its arguments.
type Recorded = (String, Map<String, Value>);

/// The backend cache's `backend` object: its type and config; `None` when the cache records none
/// (a directory initialised without a backend block keeps the local default).
fn parse_cache(origin: &str, bytes: &[u8]) -> Result<Option<Recorded>, StoreError> {
    let cache: Value = serde_json::from_slice(bytes).map_err(|error| {
        StoreError::new(format!(
            "{origin}:{}:{}: the backend cache is not valid JSON: {error}",
            error.line(),
            error.column()
        ))
        .with_hint("run `terraform init` again to rewrite it")
    })?;
    let Some(backend) = cache.get("backend").filter(|backend| !backend.is_null()) else {
        return Ok(None);
    };
    let kind = backend
        .get("type")
        .and_then(Value::as_str)
        .filter(|kind| !kind.is_empty());
    let (Some(kind), Some(Value::Object(config))) = (kind, backend.get("config")) else {
        return Err(StoreError::new(format!(
            "{origin}: the backend cache has no backend type and config"
        ))
        .with_hint("run `terraform init` again to rewrite it"));
    };
    Ok(Some((kind.to_owned(), config.clone())))
}

/// Applies `--backend-config` items in order: `KEY=VALUE` sets one argument (a value starting with
/// `{` or `[` is an HCL expression, as Terraform reads one for an object or list argument), anything
/// else is an HCL file of arguments. With `known_only`, a key the cached config does not have is
/// refused, as `terraform init` refuses an argument the backend does not take.
fn apply_overrides(
    config: &mut BackendConfig,
    items: &[String],
    known_only: bool,
) -> Result<(), StoreError> {
    for item in items {
        let values = match item.split_once('=') {
            Some((key, raw)) => {
                let mut values = Map::new();
                values.insert(key.trim().to_owned(), cli_value(item, raw)?);
                values
            }
            None => hcl_file(Path::new(item))?,
        };
        for (key, value) in values {
            if known_only && !config.values.contains_key(&key) {
                return Err(StoreError::new(format!(
                    "--backend-config {item}: `{key}` is not an argument of backend \"{}\"",
                    config.kind
                ))
                .with_hint(format!(
                    "the arguments it takes are those in {}",
                    config.origin
                )));
            }
            config.values.insert(key, value);
        }
    }
    Ok(())
}

/// A `KEY=VALUE` item's value: text as given, or an HCL expression for an object or a list.
fn cli_value(item: &str, raw: &str) -> Result<Value, StoreError> {
    let trimmed = raw.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return Ok(Value::String(raw.to_owned()));
    }
    let wrapped = format!("value = {raw}\n");
    let body: hcl::Value = hcl::from_str(&wrapped).map_err(|error| {
        StoreError::new(format!(
            "--backend-config {}: the value is not a valid expression: {}",
            redact_item(item),
            first_line(&error.to_string())
        ))
    })?;
    let json = serde_json::to_value(body).map_err(|error| StoreError::new(error.to_string()))?;
    Ok(json.get("value").cloned().unwrap_or(Value::Null))
}

/// An HCL file of backend arguments, as `terraform init -backend-config=FILE` reads one.
fn hcl_file(path: &Path) -> Result<Map<String, Value>, StoreError> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        StoreError::new(format!(
            "--backend-config {}: cannot read it: {}",
            path.display(),
            statectl_state::state::source::problem(&error)
        ))
        .with_hint("give `KEY=VALUE`, or a file of `key = \"value\"` lines")
    })?;
    let body: hcl::Value = hcl::from_str(&text).map_err(|error| {
        StoreError::new(format!(
            "{}: not a backend configuration file: {}",
            path.display(),
            first_line(&error.to_string())
        ))
    })?;
    match serde_json::to_value(body) {
        Ok(Value::Object(values)) => Ok(values),
        _ => Err(StoreError::new(format!(
            "{}: not a backend configuration file: expected `key = value` arguments",
            path.display()
        ))),
    }
}

/// The local backend's state for `workspace`: `path` (default `terraform.tfstate`) for the default
/// workspace, `<workspace_dir>/<name>/terraform.tfstate` (default `terraform.tfstate.d`) for others.
fn local_state(
    dir: &Path,
    values: &Map<String, Value>,
    workspace: &str,
    origin: Option<&str>,
) -> Found {
    let text = |key: &str| {
        values
            .get(key)
            .and_then(Value::as_str)
            .filter(|text| !text.is_empty())
            .map(ToOwned::to_owned)
    };
    let (path, how) = if workspace == DEFAULT_WORKSPACE {
        let configured = text("path");
        let how = configured
            .as_ref()
            .and(origin)
            .map(|origin| format!("backend \"local\" in {origin}"));
        (
            PathBuf::from(configured.unwrap_or_else(|| "terraform.tfstate".to_owned())),
            how,
        )
    } else {
        let folder = text("workspace_dir").unwrap_or_else(|| "terraform.tfstate.d".to_owned());
        (
            Path::new(&folder).join(workspace).join("terraform.tfstate"),
            Some(format!("workspace \"{workspace}\"")),
        )
    };
    let path = if dir == Path::new(".") || dir.as_os_str().is_empty() || path.is_absolute() {
        path
    } else {
        dir.join(path)
    };
    Found::Local { path, how }
}

/// `path` relative to `dir` when it is inside it, for messages.
fn relative(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir).unwrap_or(path).display().to_string()
}

/// `azurerm://account/container/blob/key`: the azurerm backend's `storage_account_name`,
/// `container_name` and `key`.
fn azurerm_values(url: &str, rest: &str) -> Result<Map<String, Value>, StoreError> {
    let mut parts = rest.splitn(3, '/');
    let (account, container, key) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
    );
    if account.is_empty() || container.is_empty() || key.is_empty() || key.ends_with('/') {
        return Err(StoreError::new(format!(
            "{url}: an azurerm state URL names a storage account, a container and a blob"
        ))
        .with_hint("for example `azurerm://myaccount/tfstate/prod.terraform.tfstate`; `statectl scan` also takes a prefix ending in `/`"));
    }
    Ok(url_values(&[
        ("storage_account_name", account),
        ("container_name", container),
        ("key", key),
    ]))
}

/// The backend arguments a state URL gives, each a string.
pub(crate) fn url_values(arguments: &[(&str, &str)]) -> Map<String, Value> {
    arguments
        .iter()
        .map(|(name, value)| ((*name).to_owned(), Value::String((*value).to_owned())))
        .collect()
}

/// A URL without the password or token it may carry, for every message.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((_, host)) => format!("***@{host}"),
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, _)) => format!("{path}?***"),
        None => tail.to_owned(),
    };
    format!("{scheme}://{authority}{tail}")
}

/// A `KEY=VALUE` item with its value hidden: it may be a secret.
fn redact_item(item: &str) -> String {
    match item.split_once('=') {
        Some((key, _)) => format!("{key}=..."),
        None => item.to_owned(),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}

pub mod workspaces;

#[cfg(test)]
pub(crate) mod checks;
#[cfg(test)]
mod tests;
