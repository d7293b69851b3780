//! What the plugin reader needs from the command line and the configuration: which reader each
//! provider's instances go through (`--reader`), and the arguments each provider configuration is
//! configured with: the literal arguments of its `provider` block in `--config DIR`, with
//! `--provider-config NAME=FILE` (a JSON object) laid over them member by member.

use crate::cli::flag_value::FlagValueError;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use statectl_tfconfig::values::{Inputs, Values};
use statectl_tfconfig::{ConfigError, Module, ProviderBlock, read_provider_blocks};

use crate::cli::error::{CliError, sanitize};
use crate::cli::printer::Printer;
use crate::state::State;

/// How instances are asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The HTTP provider profiles (no Terraform needed).
    Http,
    /// The provider plugin's own ReadResource, as `terraform apply -refresh-only` does.
    Plugin,
}

/// `--reader http|plugin` for the run, or `--reader NAME=http|plugin` for one provider (its local
/// name, `aws`); the last word for a provider wins.
pub(super) fn parse_reader(text: &str) -> Result<(Option<String>, Reader), FlagValueError> {
    let (provider, reader) = match text.split_once('=') {
        Some((provider, reader)) if !provider.is_empty() => (Some(provider.to_owned()), reader),
        Some(_) => return Err(FlagValueError::ReaderWithoutProvider),
        None => (None, text),
    };
    let reader = match reader {
        "http" => Reader::Http,
        "plugin" => Reader::Plugin,
        other => return Err(FlagValueError::UnknownReader(other.to_owned())),
    };
    Ok((provider, reader))
}

/// The readers chosen for a run.
#[derive(Debug, Clone)]
pub(super) struct Readers {
    default: Reader,
    per_provider: HashMap<String, Reader>,
}

impl Readers {
    pub(super) fn new(choices: &[(Option<String>, Reader)]) -> Readers {
        let mut readers = Readers {
            default: Reader::Http,
            per_provider: HashMap::new(),
        };
        for (provider, reader) in choices {
            match provider {
                Some(provider) => {
                    readers.per_provider.insert(provider.clone(), *reader);
                }
                None => readers.default = *reader,
            }
        }
        readers
    }

    /// Refuses a `--reader NAME=...` whose NAME is no provider of `state` (an endpoint name such as
    /// `cf`, a typo): it would choose nothing and the instances would be read the other way. The
    /// error names the providers there are.
    pub(super) fn check_names(&self, state: &State<'_>) -> Result<(), CliError> {
        let present: BTreeSet<&str> = state
            .instances()
            .filter_map(|(resource, instance)| State::provider_of(resource, instance))
            .map(|provider| local_name(&provider.source))
            .collect();
        let mut unknown: Vec<&String> = self
            .per_provider
            .keys()
            .filter(|name| !present.contains(name.as_str()))
            .collect();
        unknown.sort();
        let Some(first) = unknown.first() else {
            return Ok(());
        };
        let there = if present.is_empty() {
            "the state has no provider".to_owned()
        } else {
            let names: Vec<String> = present
                .iter()
                .map(|name| format!("`{}`", sanitize(name)))
                .collect();
            format!("its providers: {}", names.join(", "))
        };
        let reader = match self.per_provider.get(*first) {
            Some(Reader::Plugin) => "plugin",
            _ => "http",
        };
        Err(CliError::new(format!(
            "`--reader {name}={reader}`: no provider `{name}` in the state; {there}",
            name = sanitize(first),
        ))
        .with_hint("NAME is a provider's local name (the last part of its source: `aws`, `oci`, `cloudfoundry`), not an `--endpoint` name"))
    }

    /// The reader for instances of the provider with this source address
    /// (`registry.terraform.io/hashicorp/aws`) or local name.
    pub(super) fn for_provider(&self, source: &str) -> Reader {
        self.per_provider
            .get(local_name(source))
            .copied()
            .unwrap_or(self.default)
    }
}

/// A provider's local name as Terraform defaults it: the type, the last part of its source.
pub(super) fn local_name(source: &str) -> &str {
    source.rsplit('/').next().unwrap_or(source)
}

/// Where the provider plugins are and what they are configured with: the flags `drift` and
/// `refresh --reader plugin` share.
#[derive(Debug, Clone, clap::Args)]
pub struct PluginArgs {
    /// Where provider plugins are, instead of `.terraform/providers` under --config (or the
    /// working directory); repeatable.
    #[arg(long = "plugin-dir", value_name = "DIR")]
    pub plugin_dirs: Vec<PathBuf>,

    /// A provider configuration's arguments, a JSON object laid over the literal ones of its
    /// `provider` block in --config; NAME is `aws` or `aws.ALIAS`; repeatable.
    #[arg(long = "provider-config", value_name = "NAME=FILE", value_parser = parse_provider_config)]
    pub provider_configs: Vec<(String, PathBuf)>,
}

/// `NAME=FILE` of `--provider-config`.
fn parse_provider_config(text: &str) -> Result<(String, PathBuf), FlagValueError> {
    match text.split_once('=') {
        Some((name, file)) if !name.is_empty() && !file.is_empty() => {
            Ok((name.to_owned(), PathBuf::from(file)))
        }
        _ => Err(FlagValueError::NotNameEqualsFile),
    }
}

/// The arguments of every provider configuration known from `--config` and `--provider-config`,
/// by configuration name (`aws`, `aws.west`). Arguments a block holds that need Terraform's
/// evaluation are named in a warning, unless a file gives them.
pub(super) fn provider_arguments(
    config_dir: Option<&Path>,
    inputs: &Inputs,
    files: &[(String, PathBuf)],
    printer: &mut Printer,
) -> Result<HashMap<String, Map<String, Value>>, CliError> {
    let said = |error: ConfigError| {
        let mut cli = CliError::new(sanitize(&error.message));
        cli.hint = error.hint;
        cli
    };
    let blocks: Vec<ProviderBlock> = match config_dir {
        Some(dir) => {
            let root = Module::read(dir).map_err(said)?;
            let values = Values::load(&root, inputs).map_err(said)?;
            read_provider_blocks(&root, &values).map_err(said)?
        }
        None => Vec::new(),
    };
    let mut arguments: HashMap<String, Map<String, Value>> = HashMap::new();
    for block in &blocks {
        arguments.insert(block.config_name(), block.arguments.clone());
    }
    for (name, file) in files {
        let text = crate::state::bytes::read_text(file).map_err(|error| {
            CliError::new(format!(
                "{}: cannot read the provider configuration: {error}",
                file.display()
            ))
        })?;
        let Value::Object(members) = serde_json::from_str::<Value>(&text).map_err(|error| {
            CliError::new(format!(
                "{}:{}:{}: invalid JSON: {error}",
                file.display(),
                error.line(),
                error.column()
            ))
            .with_hint("--provider-config takes a JSON object of the provider block's arguments")
        })?
        else {
            return Err(CliError::new(format!(
                "{}: a provider configuration must be a JSON object",
                file.display()
            ))
            .with_hint("e.g. {\"region\": \"us-east-1\", \"endpoints\": [{\"ec2\": \"http://127.0.0.1:5000\"}]}"));
        };
        let merged = arguments.entry(name.clone()).or_default();
        for (key, value) in members {
            merged.insert(key, value);
        }
    }
    for block in &blocks {
        let given = arguments.get(&block.config_name());
        let missing: Vec<&str> = block
            .skipped
            .iter()
            .map(String::as_str)
            .filter(|path| {
                let top = path.split('.').next().unwrap_or(path);
                given.is_none_or(|arguments| !arguments.contains_key(top))
            })
            .collect();
        if !missing.is_empty() {
            printer.warning(&format!(
                "provider `{}` in {}: {} cannot be evaluated without Terraform and left unset; give it with --provider-config {}=FILE, --var or the environment",
                block.config_name(),
                block.file.display(),
                missing
                    .iter()
                    .map(|path| format!("`{path}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                block.config_name()
            ));
        }
    }
    Ok(arguments)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_per_run_and_per_provider() {
        let choices = [
            parse_reader("plugin").unwrap(),
            parse_reader("oci=http").unwrap(),
        ];
        let readers = Readers::new(&choices);
        assert_eq!(
            readers.for_provider("registry.terraform.io/hashicorp/aws"),
            Reader::Plugin
        );
        assert_eq!(
            readers.for_provider("registry.terraform.io/oracle/oci"),
            Reader::Http
        );
        assert_eq!(
            Readers::new(&[]).for_provider("registry.terraform.io/hashicorp/aws"),
            Reader::Http
        );
        assert!(
            parse_reader("grpc")
                .unwrap_err()
                .to_string()
                .contains("`grpc` is not a reader")
        );
        assert!(parse_reader("=plugin").is_err());
    }

    #[test]
    fn files_lay_over_the_literal_arguments_of_the_blocks() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(
            folder.path().join("main.tf"),
            "provider \"aws\" {\n  region = \"us-east-1\"\n  access_key = var.key\n  endpoints { ec2 = var.endpoint }\n}\n",
        )
        .unwrap();
        let file = folder.path().join("aws.json");
        std::fs::write(
            &file,
            r#"{"endpoints": [{"ec2": "http://127.0.0.1:5000"}]}"#,
        )
        .unwrap();
        let mut printer = Printer::new(crate::cli::ColorChoice::Never, false);
        let arguments = provider_arguments(
            Some(folder.path()),
            &Inputs::default(),
            &[("aws".into(), file)],
            &mut printer,
        )
        .unwrap();
        assert_eq!(
            Value::Object(arguments["aws"].clone()),
            serde_json::json!({"region": "us-east-1", "endpoints": [{"ec2": "http://127.0.0.1:5000"}]})
        );
    }

    #[test]
    fn a_file_that_is_not_an_object_is_one_clear_error() {
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("aws.json");
        std::fs::write(&file, "[1]").unwrap();
        let mut printer = Printer::new(crate::cli::ColorChoice::Never, false);
        let error = provider_arguments(
            None,
            &Inputs::default(),
            &[("aws".into(), file)],
            &mut printer,
        )
        .unwrap_err();
        assert!(
            error
                .message
                .ends_with("aws.json: a provider configuration must be a JSON object")
        );
        assert!(error.hint.is_some());
        std::fs::write(folder.path().join("aws.json"), "{\n  \"region\": }").unwrap();
        let error = provider_arguments(
            None,
            &Inputs::default(),
            &[("aws".into(), folder.path().join("aws.json"))],
            &mut printer,
        )
        .unwrap_err();
        assert!(
            error.message.contains("aws.json:2:13: invalid JSON"),
            "{}",
            error.message
        );
    }
}
