//! Terraform's CLI configuration, found as Terraform finds it (`command/cliconfig`): the file
//! `TF_CLI_CONFIG_FILE` names, else the one `TERRAFORM_CONFIG` names (its older name), a variable
//! set to the empty string counting as unset; else `~/.terraformrc` and every `*.tfrc` and
//! `*.tfrc.json` in `~/.terraform.d/`, in name order. A file named by a variable is read alone:
//! Terraform takes the variable as the wish to leave the default files out. What is read from the
//! files lives beside: the hosts' credentials here (`credentials`), the provider dev overrides in
//! reconcile's plugin reader.

pub mod credentials;

use std::path::{Path, PathBuf};

/// The file a variable names instead of the default ones: `TF_CLI_CONFIG_FILE`, else
/// `TERRAFORM_CONFIG`; an empty value is no value (Go's `os.Getenv` cannot tell them apart).
pub fn config_override(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    ["TF_CLI_CONFIG_FILE", "TERRAFORM_CONFIG"]
        .into_iter()
        .find_map(|name| env(name).filter(|path| !path.is_empty()))
        .map(PathBuf::from)
}

/// The CLI configuration files Terraform reads, in the order it merges them (a later file's setting
/// replaces an earlier one's): the overriding file alone, else `~/.terraformrc` then
/// `~/.terraform.d/*.tfrc` and `*.tfrc.json` in name order. A file that does not exist is listed
/// all the same (it holds nothing).
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "Terraform matches `*.tfrc` and `*.tfrc.json` with Go's case-sensitive filepath.Match"
)]
pub fn config_files(env: &dyn Fn(&str) -> Option<String>, home: Option<&Path>) -> Vec<PathBuf> {
    if let Some(path) = config_override(env) {
        return vec![path];
    }
    let Some(home) = home else {
        return Vec::new();
    };
    let mut files = vec![home.join(".terraformrc")];
    let mut found: Vec<PathBuf> = std::fs::read_dir(home.join(".terraform.d"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.ends_with(".tfrc") || name.ends_with(".tfrc.json"))
        })
        .collect();
    // Go's ReadDir lists names in order.
    found.sort();
    files.extend(found);
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    }

    fn home_with_files() -> tempfile::TempDir {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir(home.path().join(".terraform.d")).unwrap();
        for name in [
            "b.tfrc",
            "a.tfrc",
            "credentials.tfrc.json",
            "notes.txt",
            ".tfrc",
        ] {
            std::fs::write(home.path().join(".terraform.d").join(name), "").unwrap();
        }
        home
    }

    #[test]
    fn without_a_variable_the_default_files_are_read_in_name_order() {
        let home = home_with_files();
        let dir = home.path().join(".terraform.d");
        assert_eq!(
            config_files(&vars(&[]), Some(home.path())),
            [
                home.path().join(".terraformrc"),
                dir.join(".tfrc"),
                dir.join("a.tfrc"),
                dir.join("b.tfrc"),
                dir.join("credentials.tfrc.json"),
            ]
        );
        assert_eq!(config_files(&vars(&[]), None), Vec::<PathBuf>::new());
    }

    /// The files read with the variables `pairs`, in a home with the five default files.
    fn files_with(pairs: &'static [(&'static str, &'static str)]) -> Vec<PathBuf> {
        config_files(&vars(pairs), Some(home_with_files().path()))
    }

    #[test]
    fn tf_cli_config_file_replaces_every_other_file_and_wins_over_terraform_config() {
        assert_eq!(
            files_with(&[
                ("TF_CLI_CONFIG_FILE", "/etc/tf.rc"),
                ("TERRAFORM_CONFIG", "/etc/old.rc"),
            ]),
            [PathBuf::from("/etc/tf.rc")]
        );
    }

    // The plugin reader ignored TERRAFORM_CONFIG; Terraform reads it when TF_CLI_CONFIG_FILE is unset.
    #[test]
    fn terraform_config_is_read_when_tf_cli_config_file_is_unset() {
        assert_eq!(
            files_with(&[("TERRAFORM_CONFIG", "/etc/old.rc")]),
            [PathBuf::from("/etc/old.rc")]
        );
    }

    // An empty variable is unset, as Go's os.Getenv reads it: the next name, then the default files.
    // The credentials reader took an empty TF_CLI_CONFIG_FILE as a file named "" (no file at all);
    // the plugin reader stopped there, never looking at TERRAFORM_CONFIG.
    #[test]
    fn an_empty_variable_counts_as_unset() {
        assert_eq!(
            files_with(&[
                ("TF_CLI_CONFIG_FILE", ""),
                ("TERRAFORM_CONFIG", "/etc/old.rc")
            ]),
            [PathBuf::from("/etc/old.rc")]
        );
        assert_eq!(
            files_with(&[("TF_CLI_CONFIG_FILE", ""), ("TERRAFORM_CONFIG", "")]).len(),
            5
        );
    }
}
