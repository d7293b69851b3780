//! The API token for a Terraform host (HCP Terraform, Terraform Enterprise), found where Terraform
//! finds it: a `TF_TOKEN_<host>` variable, else a `credentials "<host>"` block of the CLI
//! configuration files ([`super::config_files`]; `terraform login` writes `credentials.tfrc.json`
//! among them). Hosts are compared as Terraform's `svchost` compares them: lowercase,
//! internationalised names in Punycode, the port kept (`:443` dropped).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Where a token came from, for messages (never the token itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Config,
    Env(String),
    File(PathBuf),
}

impl std::fmt::Display for Source {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Config => formatter.write_str("the backend's `token`"),
            Source::Env(name) => write!(formatter, "{name}"),
            Source::File(path) => write!(formatter, "{}", path.display()),
        }
    }
}

/// `host` as Terraform compares hostnames, or `None` when it is not a hostname.
pub fn for_comparison(host: &str) -> Option<String> {
    let host = host.trim();
    if host.is_empty() || host.contains(['/', '@', '?', '#', ' ']) {
        return None;
    }
    let (name, port) = match host.rsplit_once(':') {
        Some((name, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            (name, Some(port))
        }
        Some(_) => return None,
        None => (host, None),
    };
    // The URL parser applies IDNA (UTS #46): lowercase, Punycode for non-ASCII labels.
    let parsed = url::Url::parse(&format!("https://{name}/")).ok()?;
    let name = parsed.host_str()?.to_owned();
    Some(match port {
        Some("443") | None => name,
        Some(port) => format!("{name}:{port}"),
    })
}

/// The variable a user sets for `host`: dots as `_`, hyphens as `__` (both spellings are read).
pub fn env_name(host: &str) -> String {
    format!("TF_TOKEN_{}", host.replace('-', "__").replace('.', "_"))
}

/// The token for `host` (already [`for_comparison`]) from the variables in `vars`.
pub fn from_env(
    host: &str,
    vars: impl Iterator<Item = (String, String)>,
) -> Option<(String, Source)> {
    for (name, value) in vars {
        let Some(raw) = name.strip_prefix("TF_TOKEN_") else {
            continue;
        };
        // `__` is a hyphen and `_` a dot: hyphens cannot start or end a label, so an odd run of
        // underscores never occurs in a valid name.
        let raw = raw.replace("__", "-").replace('_', ".");
        if for_comparison(&raw).as_deref() == Some(host) && !value.is_empty() {
            return Some((value, Source::Env(name)));
        }
    }
    None
}

/// The token a `credentials "<host>"` block of `files` gives `host`; a file that cannot be read
/// or parsed is skipped, as Terraform skips it for credentials (it warns and goes on).
pub fn from_files(host: &str, files: &[PathBuf]) -> Option<(String, Source)> {
    let mut found = None;
    for file in files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Some(blocks) = credentials_blocks(file, &text) else {
            continue;
        };
        for (name, block) in blocks {
            if for_comparison(&name).as_deref() != Some(host) {
                continue;
            }
            if let Some(token) = block.get("token").and_then(Value::as_str)
                && !token.is_empty()
            {
                found = Some((token.to_owned(), Source::File(file.clone())));
            }
        }
    }
    found
}

/// The `credentials` blocks of one file, JSON (`.json`) or HCL: host name and body.
fn credentials_blocks(file: &Path, text: &str) -> Option<Vec<(String, Value)>> {
    let value: Value = if file.extension().is_some_and(|ext| ext == "json") {
        serde_json::from_str(text).ok()?
    } else {
        serde_json::to_value(hcl::from_str::<hcl::Value>(text).ok()?).ok()?
    };
    let mut blocks = Vec::new();
    // HCL gives `credentials "host" { ... }` as an object, or a list of them when repeated.
    let collect = |item: &Value, blocks: &mut Vec<(String, Value)>| {
        if let Some(map) = item.as_object() {
            for (name, body) in map {
                let body = match body {
                    Value::Array(items) => items.last().cloned().unwrap_or(Value::Null),
                    other => other.clone(),
                };
                blocks.push((name.clone(), body));
            }
        }
    };
    match value.get("credentials")? {
        Value::Array(items) => items.iter().for_each(|item| collect(item, &mut blocks)),
        item => collect(item, &mut blocks),
    }
    Some(blocks)
}

#[cfg(test)]
mod tests {
    use super::super::config_files;
    use super::*;

    #[test]
    fn hostnames_compare_lowercase_in_punycode_without_the_default_port() {
        assert_eq!(
            for_comparison("App.Terraform.IO").as_deref(),
            Some("app.terraform.io")
        );
        assert_eq!(
            for_comparison("café.fr:443").as_deref(),
            Some("xn--caf-dma.fr")
        );
        assert_eq!(
            for_comparison("localhost:8443").as_deref(),
            Some("localhost:8443")
        );
        assert_eq!(for_comparison("https://x/"), None);
        assert_eq!(for_comparison("host:port"), None);
    }

    #[test]
    fn tf_token_variables_take_underscores_for_dots_and_double_ones_for_hyphens() {
        let vars = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect::<Vec<_>>()
                .into_iter()
        };
        let found = from_env(
            "tfe.my-corp.example",
            vars(&[
                ("TF_TOKEN_other_example", "no"),
                ("TF_TOKEN_tfe_my__corp_example", "yes"),
            ]),
        );
        assert_eq!(
            found,
            Some((
                "yes".to_owned(),
                Source::Env("TF_TOKEN_tfe_my__corp_example".to_owned())
            ))
        );
        // Unicode or Punycode spellings of an IDN both match its Punycode form.
        let host = for_comparison("café.fr").unwrap();
        assert!(from_env(&host, vars(&[("TF_TOKEN_café_fr", "t")])).is_some());
        assert!(from_env(&host, vars(&[("TF_TOKEN_xn____caf__dma_fr", "t")])).is_some());
        assert!(from_env(&host, vars(&[("TF_TOKEN_xn____caf__dma_fr", "")])).is_none());
        assert_eq!(
            env_name("tfe.my-corp.example"),
            "TF_TOKEN_tfe_my__corp_example"
        );
    }

    #[test]
    fn credentials_come_from_the_json_file_and_hcl_blocks_the_later_file_winning() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join(".terraform.d");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(
            home.path().join(".terraformrc"),
            "credentials \"app.terraform.io\" {\n  token = \"from-rc\"\n}\ncredentials \"tfe.example\" {\n  token = \"tfe-rc\"\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("credentials.tfrc.json"),
            r#"{"credentials": {"APP.terraform.io": {"token": "from-login"}}}"#,
        )
        .unwrap();
        let no_env = |_: &str| None;
        let files = config_files(&no_env, Some(home.path()));
        assert_eq!(files.len(), 2);
        let (token, source) = from_files("app.terraform.io", &files).unwrap();
        assert_eq!(token, "from-login");
        assert_eq!(source, Source::File(dir.join("credentials.tfrc.json")));
        assert_eq!(from_files("tfe.example", &files).unwrap().0, "tfe-rc");
        assert_eq!(from_files("nowhere.example", &files), None);

        // TF_CLI_CONFIG_FILE replaces every other file.
        let only = home.path().join("only.tfrc");
        std::fs::write(&only, "credentials \"tfe.example\" { token = \"only\" }\n").unwrap();
        let only_text = only.display().to_string();
        let overridden =
            move |name: &str| (name == "TF_CLI_CONFIG_FILE").then(|| only_text.clone());
        let files = config_files(&overridden, Some(home.path()));
        assert_eq!(files, vec![only.clone()]);
        assert_eq!(from_files("tfe.example", &files).unwrap().0, "only");
        assert_eq!(from_files("app.terraform.io", &files), None);
    }
}
