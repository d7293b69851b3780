//! The part of Terraform's CLI configuration that changes which provider binary runs:
//! `provider_installation { dev_overrides { "NAMESPACE/TYPE" = "DIR" } }`, read from the files
//! Terraform reads (`statectl_net::cliconfig::config_files`), in HCL or, as Terraform's HCL 1 parser tells it by a
//! leading `{`, JSON. A provider under a dev override runs from that directory, unverified, as
//! in Terraform. The installation methods (`filesystem_mirror`, `direct`, `plugin_cache_dir`) only
//! tell `terraform init` where to get packages from: Terraform itself runs providers from
//! `.terraform/providers` (a cache directory is linked from there), and so does statectl.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::reconcile::plugin::discover::ProviderSource;

/// A CLI configuration file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CliConfigError {
    #[error("cannot read the CLI configuration `{}`: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the CLI configuration `{}` is not valid: {}", path.display(), first_line(source))]
    Parse { path: PathBuf, source: SyntaxError },
    #[error("the CLI configuration `{}` is not valid: the dev override of `{provider}` must be a directory path", path.display())]
    DevOverride { path: PathBuf, provider: String },
}

/// Why a CLI configuration file does not parse, as JSON or as HCL.
#[derive(Debug, thiserror::Error)]
pub enum SyntaxError {
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Hcl(#[from] hcl::Error),
}

/// The parser's first line, without the markers of its multi-line report.
fn first_line(error: &SyntaxError) -> String {
    error
        .to_string()
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches([' ', '-', '>'])
        .to_owned()
}

fn parse(text: &str) -> Result<Value, SyntaxError> {
    if text.trim_start().starts_with('{') {
        return Ok(serde_json::from_str(text)?);
    }
    let value = hcl::from_str::<hcl::Value>(&as_hcl2(text))?;
    Ok(serde_json::to_value(value)?)
}

/// The CLI configuration files Terraform reads, found as it finds them (one reader for statectl).
pub use statectl_net::cliconfig::config_files;

/// The dev overrides of `files` (a missing file holds none), by provider; a later file's override
/// of a provider replaces an earlier one's.
pub fn dev_overrides(
    files: &[PathBuf],
) -> Result<BTreeMap<ProviderSource, PathBuf>, CliConfigError> {
    let mut overrides = BTreeMap::new();
    for path in files {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => {
                return Err(CliConfigError::Read {
                    path: path.clone(),
                    source,
                });
            }
        };
        let parsed = parse(&text).map_err(|source| CliConfigError::Parse {
            path: path.clone(),
            source,
        })?;
        // A block appears as an object, or a list of objects when repeated.
        let each = |value: &Value| -> Vec<Value> {
            match value {
                Value::Array(items) => items.clone(),
                Value::Null => Vec::new(),
                other => vec![other.clone()],
            }
        };
        for installation in each(&parsed["provider_installation"]) {
            for block in each(&installation["dev_overrides"]) {
                let Value::Object(entries) = block else {
                    continue;
                };
                for (source, dir) in entries {
                    let Value::String(dir) = dir else {
                        return Err(CliConfigError::DevOverride {
                            path: path.clone(),
                            provider: source.clone(),
                        });
                    };
                    overrides.insert(ProviderSource::parse(&source), PathBuf::from(dir));
                }
            }
        }
    }
    Ok(overrides)
}

/// The CLI configuration is HCL 1, whose blocks may hold quoted names (`"hashicorp/aws" = "DIR"`),
/// which HCL 2 allows only in an object: `dev_overrides {` becomes `dev_overrides = {`, an object
/// whose members are the same lines.
fn as_hcl2(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("dev_overrides") {
        let (before, after) = rest.split_at(at + "dev_overrides".len());
        out.push_str(before);
        if after.trim_start().starts_with('{') {
            out.push_str(" =");
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// How Terraform names a provider in messages: `NAMESPACE/TYPE` on the default registry, the whole
/// address elsewhere.
pub fn for_display(source: &ProviderSource) -> String {
    if source.hostname == "registry.terraform.io" {
        format!("{}/{}", source.namespace, source.type_name)
    } else {
        source.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reconcile::test_support::file_in_temp_folder;

    #[test]
    fn reads_dev_overrides_with_quoted_names() {
        let (dir, file) = file_in_temp_folder(
            "dev.tfrc",
            "plugin_cache_dir = \"/tmp/cache\"\nprovider_installation {\n  dev_overrides {\n    \"hashicorp/aws\" = \"/opt/aws\"\n    \"example.com/acme/widget\" = \"/opt/widget\"\n  }\n  direct {}\n}\n",
        );
        let overrides = dev_overrides(&[file, dir.path().join("missing.tfrc")]).unwrap();
        assert_eq!(
            overrides
                .iter()
                .map(|(source, dir)| format!("{} in {}", for_display(source), dir.display()))
                .collect::<Vec<_>>(),
            [
                "example.com/acme/widget in /opt/widget",
                "hashicorp/aws in /opt/aws"
            ]
        );
    }

    #[test]
    fn reads_dev_overrides_in_json_and_lets_a_later_file_win() {
        let (_first_folder, first) = file_in_temp_folder(
            "a.tfrc",
            "provider_installation {\n  dev_overrides {\n    \"hashicorp/aws\" = \"/opt/hcl\"\n  }\n}\n",
        );
        let (_second_folder, second) = file_in_temp_folder(
            "b.tfrc.json",
            r#"{"credentials": {"app.terraform.io": {"token": "x"}},
                "provider_installation": [{"dev_overrides": {"hashicorp/aws": "/opt/json"}, "direct": {}}]}"#,
        );
        let overrides = dev_overrides(&[first, second.clone()]).unwrap();
        assert_eq!(
            overrides
                .iter()
                .map(|(source, dir)| format!("{} in {}", for_display(source), dir.display()))
                .collect::<Vec<_>>(),
            ["hashicorp/aws in /opt/json"]
        );
        std::fs::write(&second, "{\"provider_installation\": ").unwrap();
        let error = dev_overrides(&[second]).unwrap_err().to_string();
        assert!(error.contains("b.tfrc.json` is not valid: EOF"), "{error}");
    }

    #[test]
    fn a_broken_file_is_one_line_naming_it() {
        let (_dir, file) = file_in_temp_folder(
            ".terraformrc",
            "provider_installation {\n  dev_overrides {\n",
        );
        let error = dev_overrides(&[file]).unwrap_err().to_string();
        assert!(error.starts_with("the CLI configuration `"), "{error}");
        assert!(!error.contains('\n'), "{error}");
    }
}
