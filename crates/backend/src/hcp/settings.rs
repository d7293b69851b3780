//! The `cloud` block and `backend "remote"` as Terraform resolves them: `hostname` (else
//! `TF_CLOUD_HOSTNAME` for `cloud`, else `app.terraform.io`), `organization` (else
//! `TF_CLOUD_ORGANIZATION` for `cloud`), the token, and which remote workspace the selected local
//! workspace is:
//!
//! - `cloud` with `workspaces { name = "N" }`: always `N` (another selected workspace is refused,
//!   as Terraform refuses a `TF_WORKSPACE` that differs);
//! - `cloud` with `tags`: the selected workspace, which must carry the tags; with none selected,
//!   the one workspace that carries them (several: the user chooses);
//! - `cloud` with neither: `TF_WORKSPACE` names it;
//! - `remote` with `name`: the `default` workspace is `name`; with `prefix`: workspace `W` is
//!   `<prefix>W`, and `default` does not exist.
//!
//! For a listing of them all ([`Mapping`]), the block's strategy as Terraform's `Workspaces()`
//! follows it: one `name`; the workspaces with the `tags` (in the `project`, else
//! `TF_CLOUD_PROJECT`, when it exists); every workspace (of that project) when the `cloud` block
//! names neither; `remote`'s `prefix`: those whose name starts with it.

use statectl_state::state::store::StoreError;

use crate::config::BackendConfig;
use crate::discover::DEFAULT_WORKSPACE;
use statectl_net::cliconfig::credentials::{self, Source};

/// HCP Terraform's own host: the default of both blocks.
pub(super) const DEFAULT_HOSTNAME: &str = "app.terraform.io";

/// Which remote workspace to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    /// This one, by name.
    Named(String),
    /// The one with these tags (and key/value bindings, as [`Mapping::Listed`] has them): `chosen`
    /// when a workspace was selected, else the only match.
    Tagged {
        tags: Vec<String>,
        bindings: Vec<(String, String)>,
        chosen: Option<String>,
    },
}

/// Which remote workspaces the block maps to, all of them (`terraform workspace list`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Mapping {
    /// `cloud`'s `name`: that one workspace, named as it is.
    Named(String),
    /// `remote`'s `name`: the one workspace, which Terraform calls `default`.
    Default(String),
    /// `cloud`: the workspaces carrying every tag (no tags: every workspace), in `project` when it
    /// names one. `tags = { key = "value" }` is both: the keys as tags, and each key and value a
    /// binding the workspace must carry, as Terraform asks for both.
    Listed {
        tags: Vec<String>,
        bindings: Vec<(String, String)>,
        project: Option<String>,
    },
    /// `remote`'s `prefix`: the workspaces whose names start with it, named without it.
    Prefixed(String),
}

/// Everything the backend needs, checked; the token is kept out of `Debug`.
#[derive(Clone)]
pub(super) struct Settings {
    /// As written (for messages and `terraform login`).
    pub hostname: String,
    /// As compared (for credentials and the API's URL).
    pub host: String,
    pub organization: String,
    pub token: String,
    pub token_source: Source,
}

crate::debug::shown_in_debug!(Settings: hostname, organization, token_source);

impl Settings {
    /// Reads `config` (kind `cloud` or `remote`) with the variables `env` gives and the CLI
    /// configuration `files`.
    pub(super) fn read(
        config: &BackendConfig,
        env: &dyn Fn(&str) -> Option<String>,
        vars: impl Iterator<Item = (String, String)>,
        files: &[std::path::PathBuf],
    ) -> Result<Settings, StoreError> {
        let cloud = config.kind == "cloud";
        let hostname = config
            .string("hostname")
            .or_else(|| {
                if cloud {
                    env("TF_CLOUD_HOSTNAME")
                } else {
                    None
                }
            })
            .unwrap_or_else(|| DEFAULT_HOSTNAME.to_owned());
        let host = credentials::for_comparison(&hostname).ok_or_else(|| {
            config.invalid(
                "hostname",
                "a hostname (`app.terraform.io`, `tfe.example.com:8443`)",
            )
        })?;
        let organization = match config.string("organization") {
            Some(organization) => organization,
            None if cloud => env("TF_CLOUD_ORGANIZATION").ok_or_else(|| {
                config
                    .missing("organization")
                    .with_hint("set `organization` in the `cloud` block, or TF_CLOUD_ORGANIZATION")
            })?,
            None => return Err(config.missing("organization")),
        };
        let (token, token_source) = match config.string("token") {
            Some(token) => (token, Source::Config),
            None => credentials::from_env(&host, vars)
                .or_else(|| credentials::from_files(&host, files))
                .ok_or_else(|| no_token(config, &hostname, &host))?,
        };
        // Also when it came from a CLI configuration file.
        statectl_net::secrets::register(&token);
        Ok(Settings {
            hostname,
            host,
            organization,
            token,
            token_source,
        })
    }
}

fn no_token(config: &BackendConfig, hostname: &str, host: &str) -> StoreError {
    let login = if host == DEFAULT_HOSTNAME {
        "terraform login".to_owned()
    } else {
        format!("terraform login {hostname}")
    };
    config
        .error(format_args!("no API token for {hostname}"))
        .with_hint(format!(
            "run `{login}`, or set {}",
            credentials::env_name(host)
        ))
}

/// The remote workspace the selected one maps to.
pub(super) fn target(
    config: &BackendConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Target, StoreError> {
    let selected = (config.workspace != DEFAULT_WORKSPACE).then(|| config.workspace.clone());
    let origin = &config.origin;
    match mapping(config, env)? {
        Mapping::Default(name) => match selected {
            None => Ok(Target::Named(name)),
            Some(other) => Err(StoreError::new(format!(
                "{origin}: backend \"remote\" names one workspace, `{name}`; workspace `{other}` is not one of its"
            ))
            .with_hint("select `default` (`--workspace default`, or unset TF_WORKSPACE); Terraform says \"workspaces not supported\" here too")),
        },
        Mapping::Prefixed(prefix) => match selected {
            Some(name) if name.starts_with(&prefix) => Ok(Target::Named(name)),
            Some(name) => Ok(Target::Named(format!("{prefix}{name}"))),
            None => Err(StoreError::new(format!(
                "{origin}: backend \"remote\" maps workspaces by the prefix `{prefix}`, and has no `default` workspace"
            ))
            .with_hint("select one with `--workspace NAME` (or TF_WORKSPACE); `terraform workspace list` shows them")),
        },
        Mapping::Named(name) => match selected {
            Some(other) if other != name => Err(StoreError::new(format!(
                "{origin}: the `cloud` block names workspace `{name}`, but `{other}` is selected"
            ))
            .with_hint("drop `--workspace` (or unset TF_WORKSPACE): Terraform refuses a TF_WORKSPACE that differs from the block's `name` too")),
            _ => Ok(Target::Named(name)),
        },
        Mapping::Listed { tags, bindings, .. } if !tags.is_empty() => Ok(Target::Tagged {
            tags,
            bindings,
            chosen: selected,
        }),
        Mapping::Listed { .. } => match selected.or_else(|| env("TF_WORKSPACE")) {
            Some(name) => Ok(Target::Named(name)),
            None => Err(StoreError::new(format!(
                "{origin}: the `cloud` block names no workspace (`workspaces {{ name }}` or `tags`)"
            ))
            .with_hint("select one with `--workspace NAME` or TF_WORKSPACE")),
        },
    }
}

/// Every remote workspace `config` maps to, whichever is selected.
pub(super) fn mapping(
    config: &BackendConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Mapping, StoreError> {
    let workspaces = config.object("workspaces")?;
    let text = |key: &str| {
        workspaces
            .and_then(|block| block.get(key))
            .and_then(serde_json::Value::as_str)
            .filter(|text| !text.is_empty())
            .map(ToOwned::to_owned)
    };
    if config.kind == "remote" {
        return match (text("name"), text("prefix")) {
            (Some(name), None) => Ok(Mapping::Default(name)),
            (None, Some(prefix)) => Ok(Mapping::Prefixed(prefix)),
            _ => Err(config.error("`workspaces` needs exactly one of `name` and `prefix`")),
        };
    }
    let tags = tags(config, workspaces)?;
    match text("name") {
        Some(_) if !tags.is_empty() => Err(StoreError::new(format!(
            "{}: the `cloud` block's `workspaces` sets both `name` and `tags`; it takes one of them",
            config.origin
        ))),
        Some(name) => Ok(Mapping::Named(name)),
        // Config beats the environment, as in Terraform.
        None => Ok(Mapping::Listed {
            tags,
            bindings: workspaces
                .and_then(|block| block.get("tags"))
                .and_then(serde_json::Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
                .collect(),
            project: text("project")
                .or_else(|| env("TF_CLOUD_PROJECT").filter(|project| !project.is_empty())),
        }),
    }
}

/// `tags = ["a", "b"]`, or `tags = { key = "value" }` (the keys; the values are the mapping's
/// `bindings`).
fn tags(
    config: &BackendConfig,
    workspaces: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Result<Vec<String>, StoreError> {
    use serde_json::Value;
    let invalid = || {
        config.invalid(
            "workspaces.tags",
            "a list of strings or an object of strings",
        )
    };
    match workspaces.and_then(|block| block.get("tags")) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(ToOwned::to_owned).ok_or_else(invalid))
            .filter(|tag| tag.as_ref().map_or(true, |tag| !tag.is_empty()))
            .collect(),
        Some(Value::Object(map)) => {
            if map.values().any(|value| !value.is_string()) {
                return Err(invalid());
            }
            Ok(map.keys().cloned().collect())
        }
        Some(_) => Err(invalid()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The settings and the workspace the selected one maps to.
    #[derive(Debug)]
    struct Resolved {
        settings: Settings,
        target: Target,
    }

    impl std::ops::Deref for Resolved {
        type Target = Settings;

        fn deref(&self) -> &Settings {
            &self.settings
        }
    }

    fn read(
        kind: &str,
        values: serde_json::Value,
        workspace: &str,
    ) -> Result<Resolved, StoreError> {
        read_with(kind, values, workspace, &[])
    }

    fn read_with(
        kind: &str,
        values: serde_json::Value,
        workspace: &str,
        env: &[(&str, &str)],
    ) -> Result<Resolved, StoreError> {
        let mut config = BackendConfig::for_tests(kind, values);
        config.workspace = workspace.to_owned();
        let vars: Vec<(String, String)> = env
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        let lookup = |name: &str| {
            vars.iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        };
        let settings = Settings::read(&config, &lookup, vars.clone().into_iter(), &[])?;
        let target = target(&config, &lookup)?;
        Ok(Resolved { settings, target })
    }

    #[test]
    fn a_cloud_block_as_init_records_it_resolves_host_organization_and_workspace() {
        let settings = read(
            "cloud",
            json!({"hostname": null, "organization": "acme", "token": "t0k",
                   "workspaces": {"name": "prod", "project": null, "tags": null}}),
            "default",
        )
        .unwrap();
        assert_eq!(settings.hostname, "app.terraform.io");
        assert_eq!(settings.organization, "acme");
        assert_eq!(settings.target, Target::Named("prod".to_owned()));
        assert_eq!(settings.token_source, Source::Config);
        // The token never shows in Debug.
        assert!(!format!("{:?}", settings.settings).contains("t0k"));
    }

    #[test]
    fn environment_fills_what_the_cloud_block_leaves_out() {
        let settings = read_with(
            "cloud",
            json!({"hostname": null, "organization": null, "token": null, "workspaces": null}),
            "default",
            &[
                ("TF_CLOUD_HOSTNAME", "tfe.example.com"),
                ("TF_CLOUD_ORGANIZATION", "acme"),
                ("TF_WORKSPACE", "staging"),
                ("TF_TOKEN_tfe_example_com", "secret"),
            ],
        )
        .unwrap();
        assert_eq!(settings.host, "tfe.example.com");
        assert_eq!(settings.organization, "acme");
        assert_eq!(settings.target, Target::Named("staging".to_owned()));
        assert_eq!(settings.token, "secret");
        assert_eq!(
            settings.token_source,
            Source::Env("TF_TOKEN_tfe_example_com".to_owned())
        );
    }

    #[test]
    fn no_token_names_terraform_login_and_the_variable() {
        let error = read(
            "remote",
            json!({"hostname": "tfe.my-corp.example", "organization": "acme",
                   "workspaces": {"name": "prod", "prefix": null}}),
            "default",
        )
        .unwrap_err();
        assert_eq!(
            error.message,
            ".terraform/terraform.tfstate: backend \"remote\": no API token for tfe.my-corp.example"
        );
        assert_eq!(
            error.hint.as_deref(),
            Some("run `terraform login tfe.my-corp.example`, or set TF_TOKEN_tfe_my__corp_example")
        );
    }

    #[test]
    fn workspaces_map_as_terraform_maps_them() {
        let remote_prefix = json!({"organization": "acme", "token": "t",
                                   "workspaces": {"name": null, "prefix": "app-"}});
        assert_eq!(
            read("remote", remote_prefix.clone(), "dev").unwrap().target,
            Target::Named("app-dev".to_owned())
        );
        assert!(
            read("remote", remote_prefix, "default")
                .unwrap_err()
                .message
                .contains("has no `default` workspace")
        );
        let remote_name = json!({"organization": "acme", "token": "t",
                                 "workspaces": {"name": "prod"}});
        assert!(read("remote", remote_name, "dev").is_err());

        let tagged = json!({"organization": "acme", "token": "t",
                            "workspaces": {"tags": ["app", "eu"]}});
        assert_eq!(
            read("cloud", tagged.clone(), "default").unwrap().target,
            Target::Tagged {
                tags: vec!["app".to_owned(), "eu".to_owned()],
                bindings: Vec::new(),
                chosen: None
            }
        );
        assert_eq!(
            read("cloud", tagged, "app-eu").unwrap().target,
            Target::Tagged {
                tags: vec!["app".to_owned(), "eu".to_owned()],
                bindings: Vec::new(),
                chosen: Some("app-eu".to_owned())
            }
        );
        // Key/value tags: the keys, and each pair a binding to match too.
        let bound = json!({"organization": "acme", "token": "t",
                           "workspaces": {"tags": {"env": "prod", "team": "core"}}});
        assert_eq!(
            read("cloud", bound, "default").unwrap().target,
            Target::Tagged {
                tags: vec!["env".to_owned(), "team".to_owned()],
                bindings: vec![
                    ("env".to_owned(), "prod".to_owned()),
                    ("team".to_owned(), "core".to_owned())
                ],
                chosen: None
            }
        );
        let named = json!({"organization": "acme", "token": "t", "workspaces": {"name": "prod"}});
        assert!(read("cloud", named.clone(), "prod").is_ok());
        let error = read("cloud", named, "dev").unwrap_err();
        assert_eq!(
            error.message,
            ".terraform/terraform.tfstate: the `cloud` block names workspace `prod`, but `dev` is selected"
        );
        let both = json!({"organization": "acme", "token": "t",
                          "workspaces": {"name": "prod", "tags": ["x"]}});
        assert!(read("cloud", both, "default").is_err());
        let missing = json!({"organization": null, "token": "t", "workspaces": {"name": "p"}});
        assert_eq!(
            read("cloud", missing, "default")
                .unwrap_err()
                .hint
                .as_deref(),
            Some("set `organization` in the `cloud` block, or TF_CLOUD_ORGANIZATION")
        );
    }

    #[test]
    fn the_listing_follows_the_blocks_strategy_as_terraform_does() {
        let mapped = |kind: &str, values: serde_json::Value, env: &[(&str, &str)]| {
            let config = BackendConfig::for_tests(kind, values);
            let lookup = |name: &str| {
                env.iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| (*value).to_owned())
            };
            mapping(&config, &lookup)
        };
        assert_eq!(
            mapped("remote", json!({"workspaces": {"prefix": "app-"}}), &[]).unwrap(),
            Mapping::Prefixed("app-".to_owned())
        );
        assert_eq!(
            mapped("remote", json!({"workspaces": {"name": "prod"}}), &[]).unwrap(),
            Mapping::Default("prod".to_owned())
        );
        assert_eq!(
            mapped(
                "cloud",
                json!({"workspaces": {"name": "prod", "project": "x"}}),
                &[]
            )
            .unwrap(),
            Mapping::Named("prod".to_owned())
        );
        assert_eq!(
            mapped(
                "cloud",
                json!({"workspaces": {"tags": ["app"], "project": null}}),
                &[("TF_CLOUD_PROJECT", "Infra")]
            )
            .unwrap(),
            Mapping::Listed {
                tags: vec!["app".to_owned()],
                bindings: Vec::new(),
                project: Some("Infra".to_owned())
            }
        );
        // The block's project beats the environment's; neither name nor tags: every workspace.
        assert_eq!(
            mapped(
                "cloud",
                json!({"workspaces": {"project": "Apps"}}),
                &[("TF_CLOUD_PROJECT", "Infra")]
            )
            .unwrap(),
            Mapping::Listed {
                tags: Vec::new(),
                bindings: Vec::new(),
                project: Some("Apps".to_owned())
            }
        );
        // Key/value tags: the keys as tags, and the pairs as bindings.
        assert_eq!(
            mapped(
                "cloud",
                json!({"workspaces": {"tags": {"env": "prod"}}}),
                &[]
            )
            .unwrap(),
            Mapping::Listed {
                tags: vec!["env".to_owned()],
                bindings: vec![("env".to_owned(), "prod".to_owned())],
                project: None
            }
        );
        assert!(
            mapped(
                "cloud",
                json!({"workspaces": {"name": "p", "tags": ["x"]}}),
                &[]
            )
            .is_err()
        );
        assert!(mapped("remote", json!({"workspaces": {}}), &[]).is_err());
    }
}
