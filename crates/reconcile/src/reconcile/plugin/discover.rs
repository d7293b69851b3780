//! Finding a provider's plugin binary the way `terraform init` left it: under
//! `.terraform/providers/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE*` in the
//! configuration's directory, or under the `--plugin-dir` directories instead (laid out the same way,
//! or holding the binaries directly). The version is the one `.terraform.lock.hcl` locks when there
//! is a lock file, otherwise the highest one installed. With a lock file, the package found must
//! be one it records for that provider and version (`verify`), as Terraform requires before it
//! launches a provider; a provider the lock file does not list is not launched at all.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::reconcile::plugin::verify::{HashError, Package, matches_any};
use crate::state::provider::ProviderConfig;

/// The registry Terraform assumes for a source without a hostname.
const DEFAULT_HOSTNAME: &str = "registry.terraform.io";
/// The namespace of the 0.12-era legacy `provider.TYPE` addresses.
const LEGACY_NAMESPACE: &str = "hashicorp";
const LOCK_FILE: &str = ".terraform.lock.hcl";

/// A provider's fully qualified source address.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProviderSource {
    pub hostname: String,
    pub namespace: String,
    pub type_name: String,
}

/// A provider's plugin binary that cannot be found.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("provider address `{address}`: {source}")]
    Address {
        address: String,
        source: crate::state::provider::ProviderAddressError,
    },
    #[error("cannot list `{}`: {source}", path.display())]
    List {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("`{}`: {source}", path.display())]
    LockFile { path: PathBuf, source: hcl::Error },
    /// Names the source, the version, the places searched and the platform, with a hint.
    #[error("{0}")]
    NotFound(String),
    /// The lock file exists but selects no version of the provider: Terraform would not run it.
    #[error("provider {provider}: required by this state but no version is selected in `{}`", lock_file.display())]
    NotLocked {
        provider: ProviderSource,
        lock_file: PathBuf,
    },
    /// The package found is none of those the lock file records: Terraform's words.
    #[error("the cached package for {provider} {version} (in `{}`) does not match any of the checksums recorded in the dependency lock file", package.display())]
    Mismatch {
        provider: ProviderSource,
        version: String,
        package: PathBuf,
    },
    #[error("cannot verify the package for {provider}: {error}")]
    Hash {
        provider: ProviderSource,
        error: HashError,
    },
}

impl DiscoverError {
    /// What fixes it, where something does.
    pub fn hint(&self) -> Option<String> {
        match self {
            DiscoverError::NotLocked { .. } => Some(
                "run `terraform init -upgrade` in the configuration's directory to select the provider and record it in the lock file"
                    .to_owned(),
            ),
            DiscoverError::Mismatch { .. } => Some(
                "reinstall the package with `terraform init -upgrade`; if the lock file lacks this platform's checksum, add it with `terraform providers lock -platform=PLATFORM`"
                    .to_owned(),
            ),
            _ => None,
        }
    }
}

impl ProviderSource {
    /// The source of a state's provider configuration address (`provider["HOST/NS/TYPE"].alias`).
    pub fn from_state(address: &str) -> Result<ProviderSource, DiscoverError> {
        let config = ProviderConfig::parse(address).map_err(|source| DiscoverError::Address {
            address: address.to_owned(),
            source,
        })?;
        Ok(ProviderSource::parse(&config.source))
    }

    /// `HOST/NAMESPACE/TYPE`, `NAMESPACE/TYPE` (the default registry) or `TYPE` (legacy).
    pub fn parse(source: &str) -> ProviderSource {
        let parts: Vec<&str> = source.split('/').collect();
        let (hostname, namespace, type_name) = match parts.as_slice() {
            [hostname, namespace, type_name] => (*hostname, *namespace, *type_name),
            [namespace, type_name] => (DEFAULT_HOSTNAME, *namespace, *type_name),
            _ => (DEFAULT_HOSTNAME, LEGACY_NAMESPACE, source),
        };
        // Registry addresses are case-insensitive and Terraform writes them in lower case.
        ProviderSource {
            hostname: hostname.to_lowercase(),
            namespace: namespace.to_lowercase(),
            type_name: type_name.to_lowercase(),
        }
    }

    /// The binary's name without its version suffix: `terraform-provider-TYPE`.
    pub fn binary_prefix(&self) -> String {
        format!("terraform-provider-{}", self.type_name)
    }
}

impl fmt::Display for ProviderSource {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "{}/{}/{}",
            self.hostname, self.namespace, self.type_name
        )
    }
}

/// Where to look for provider binaries.
#[derive(Debug, Clone, Default)]
pub struct SearchPaths {
    /// `--plugin-dir`: when given, the only places searched (as with `terraform init -plugin-dir`).
    pub plugin_dirs: Vec<PathBuf>,
    /// The configuration's directory, holding `.terraform/` and `.terraform.lock.hcl`.
    pub config_dir: PathBuf,
    /// Terraform's data directory when `TF_DATA_DIR` moves it (relative to `config_dir`, as
    /// Terraform reads it after `-chdir`); `None`: `.terraform` in `config_dir`.
    pub data_dir: Option<PathBuf>,
    /// `dev_overrides` of the CLI configuration ([`crate::reconcile::plugin::cliconfig`]): these
    /// providers run from these directories, with no lock file check, as in Terraform.
    pub dev_overrides: BTreeMap<ProviderSource, PathBuf>,
    /// Binaries already found and verified this run ([`verify_providers`]), so that a package is
    /// hashed once however many provider configurations use it.
    pub verified: BTreeMap<ProviderSource, PathBuf>,
}

/// The platform directory name Terraform uses for this machine: `linux_amd64`, `darwin_arm64`, …
pub fn platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    format!("{os}_{arch}")
}

/// Finds the plugin binary for `source` and, when the configuration has a lock file, checks its
/// package against the checksums recorded there; a dev override's binary is taken as it is.
pub fn find_binary(source: &ProviderSource, paths: &SearchPaths) -> Result<PathBuf, DiscoverError> {
    if let Some(binary) = paths.verified.get(source) {
        return Ok(binary.clone());
    }
    if let Some(dir) = paths.dev_overrides.get(source) {
        return binary_in(dir, source)?.ok_or_else(|| {
            DiscoverError::NotFound(format!(
                "no `{}*` executable in `{}`, the CLI configuration's dev override for {source}",
                source.binary_prefix(),
                dir.display()
            ))
        });
    }
    let lock = lock_entry(&paths.config_dir, source)?;
    let locked = match &lock {
        Lock::Absent => None,
        Lock::Unlisted(lock_file) => {
            return Err(DiscoverError::NotLocked {
                provider: source.clone(),
                lock_file: lock_file.clone(),
            });
        }
        Lock::Listed(entry) => entry.version.clone(),
    };
    let installed = if paths.plugin_dirs.is_empty() {
        let data_dir = match &paths.data_dir {
            Some(dir) => paths.config_dir.join(dir),
            None => paths.config_dir.join(".terraform"),
        };
        vec![data_dir.join("providers")]
    } else {
        paths.plugin_dirs.clone()
    };
    for dir in &installed {
        if let Some((binary, package)) = find_in(dir, source, locked.as_deref())? {
            if let Lock::Listed(entry) = &lock {
                verify(source, entry, &package)?;
            }
            return Ok(binary);
        }
    }
    let places = installed
        .iter()
        .map(|dir| format!("`{}`", dir.display()))
        .collect::<Vec<_>>()
        .join(", ");
    let version = locked.map_or(String::new(), |version| {
        format!(" {version} (locked in {LOCK_FILE})")
    });
    Err(DiscoverError::NotFound(format!(
        "no `{}` binary for {source}{version} under {places} for {}; run `terraform init` in the configuration's directory, or pass --plugin-dir",
        source.binary_prefix(),
        platform()
    )))
}

/// Finds and verifies the binary of every provider configuration in `providers` (addresses as
/// the state writes them) before any is launched, remembering each in `paths.verified`: a run
/// refuses a package it must not launch up front, with nothing read.
pub fn verify_providers<'a>(
    providers: impl IntoIterator<Item = &'a str>,
    paths: &mut SearchPaths,
) -> Result<(), DiscoverError> {
    for provider in providers {
        let source = ProviderSource::from_state(provider)?;
        if !paths.verified.contains_key(&source) {
            let binary = find_binary(&source, paths)?;
            paths.verified.insert(source, binary);
        }
    }
    Ok(())
}

/// Refuses `package` unless it matches a checksum `entry` records (or `entry` records none
/// Terraform knows, which Terraform does not check either).
fn verify(
    source: &ProviderSource,
    entry: &LockEntry,
    package: &Package,
) -> Result<(), DiscoverError> {
    let matched = matches_any(package, &entry.hashes).map_err(|error| DiscoverError::Hash {
        provider: source.clone(),
        error,
    })?;
    if matched == Some(false) {
        let (Package::Directory(path) | Package::SingleFile(path) | Package::Zip(path)) = package;
        return Err(DiscoverError::Mismatch {
            provider: source.clone(),
            version: entry
                .version
                .clone()
                .unwrap_or_else(|| "(no version)".to_owned()),
            package: path.clone(),
        });
    }
    Ok(())
}

/// One directory: the installed layout first, then binaries lying directly in it.
fn find_in(
    dir: &Path,
    source: &ProviderSource,
    locked: Option<&str>,
) -> Result<Option<(PathBuf, Package)>, DiscoverError> {
    let versions_dir = dir
        .join(&source.hostname)
        .join(&source.namespace)
        .join(&source.type_name);
    let version = match locked {
        Some(version) => Some(version.to_owned()),
        None => highest_version(&versions_dir)?,
    };
    if let Some(version) = version {
        let platform_dir = versions_dir.join(version).join(platform());
        if let Some(binary) = binary_in(&platform_dir, source)? {
            return Ok(Some((binary, Package::Directory(platform_dir))));
        }
    }
    Ok(binary_in(dir, source)?.map(|binary| (binary.clone(), Package::SingleFile(binary))))
}

/// The entries of `dir`; None when it does not exist (a plugin folder that is not there holds no
/// plugin), an error naming it when it cannot be listed.
fn listing(dir: &Path) -> Result<Option<fs::ReadDir>, DiscoverError> {
    match fs::read_dir(dir) {
        Ok(entries) => Ok(Some(entries)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(DiscoverError::List {
            path: dir.to_owned(),
            source,
        }),
    }
}

/// The highest version directory under `dir`, if any.
fn highest_version(dir: &Path) -> Result<Option<String>, DiscoverError> {
    let Some(entries) = listing(dir)? else {
        return Ok(None);
    };
    let mut best: Option<String> = None;
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !name.starts_with(|character: char| character.is_ascii_digit()) {
            continue;
        }
        if best
            .as_deref()
            .is_none_or(|best| compare_versions(&name, best) == Ordering::Greater)
        {
            best = Some(name);
        }
    }
    Ok(best)
}

/// The file in `dir` named `terraform-provider-TYPE`, optionally followed by `_…` (`_v5.0.0_x5`) or
/// `.exe`; the first in name order when there are several.
fn binary_in(dir: &Path, source: &ProviderSource) -> Result<Option<PathBuf>, DiscoverError> {
    let Some(entries) = listing(dir)? else {
        return Ok(None);
    };
    let prefix = source.binary_prefix();
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.path().is_file())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| {
            name.strip_prefix(&prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['_', '.']))
        })
        .collect();
    names.sort();
    Ok(names.first().map(|name| dir.join(name)))
}

/// What `.terraform.lock.hcl` says about one provider.
enum Lock {
    /// There is no lock file: nothing is verified, and the highest installed version is used.
    Absent,
    /// The lock file (this one) does not list the provider.
    Unlisted(PathBuf),
    Listed(LockEntry),
}

/// A provider's block in the lock file.
struct LockEntry {
    version: Option<String>,
    /// The `hashes` it records, in any scheme.
    hashes: Vec<String>,
}

/// The lock file's entry for `source` in `config_dir`.
fn lock_entry(config_dir: &Path, source: &ProviderSource) -> Result<Lock, DiscoverError> {
    let path = config_dir.join(LOCK_FILE);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Lock::Absent),
        Err(source) => return Err(DiscoverError::Read { path, source }),
    };
    let body = hcl::parse(&text).map_err(|source| DiscoverError::LockFile {
        path: path.clone(),
        source,
    })?;
    let wanted = source.to_string();
    for block in body.blocks() {
        let names_source = block.identifier() == "provider"
            && block
                .labels()
                .first()
                .is_some_and(|label| ProviderSource::parse(label.as_str()).to_string() == wanted);
        if !names_source {
            continue;
        }
        let mut entry = LockEntry {
            version: None,
            hashes: Vec::new(),
        };
        for attribute in block.body().attributes() {
            match (attribute.key(), attribute.expr()) {
                ("version", hcl::Expression::String(version)) => {
                    entry.version = Some(version.clone());
                }
                ("hashes", hcl::Expression::Array(hashes)) => {
                    entry.hashes = hashes
                        .iter()
                        .filter_map(|hash| match hash {
                            hcl::Expression::String(hash) => Some(hash.clone()),
                            _ => None,
                        })
                        .collect();
                }
                _ => {}
            }
        }
        return Ok(Lock::Listed(entry));
    }
    Ok(Lock::Unlisted(path))
}

/// Orders semantic versions: numeric parts numerically, a release above its pre-releases.
fn compare_versions(left: &str, right: &str) -> Ordering {
    let split = |version: &str| -> (Vec<u64>, Option<String>) {
        let (release, pre) = match version.split_once('-') {
            Some((release, pre)) => (release.to_owned(), Some(pre.to_owned())),
            None => (version.to_owned(), None),
        };
        let numbers = release
            .split('.')
            .map(|part| part.parse().unwrap_or(0))
            .collect();
        (numbers, pre)
    };
    let (left_numbers, left_pre) = split(left);
    let (right_numbers, right_pre) = split(right);
    left_numbers
        .cmp(&right_numbers)
        .then_with(|| match (left_pre, right_pre) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (Some(left), Some(right)) => left.cmp(&right),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn install(root: &Path, source: &str, version: &str, file: &str) -> PathBuf {
        let dir = root.join(source).join(version).join(platform());
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(file);
        fs::write(&path, b"#!/bin/sh\n").unwrap();
        path
    }

    fn aws() -> ProviderSource {
        ProviderSource::from_state(r#"provider["registry.terraform.io/hashicorp/aws"]"#).unwrap()
    }

    #[test]
    fn reads_sources_from_state_addresses() {
        assert_eq!(
            ProviderSource::from_state(
                r#"module.a.provider["registry.opentofu.org/Hashicorp/aws"].west"#
            )
            .unwrap()
            .to_string(),
            "registry.opentofu.org/hashicorp/aws"
        );
        assert_eq!(
            ProviderSource::from_state("provider.null")
                .unwrap()
                .to_string(),
            "registry.terraform.io/hashicorp/null"
        );
        assert_eq!(
            ProviderSource::parse("oracle/oci").to_string(),
            "registry.terraform.io/oracle/oci"
        );
        assert!(ProviderSource::from_state("provider[aws]").is_err());
    }

    #[test]
    fn picks_the_highest_installed_version() {
        let config = tempfile::tempdir().unwrap();
        let providers = config.path().join(".terraform/providers");
        install(
            &providers,
            "registry.terraform.io/hashicorp/aws",
            "5.9.0",
            "terraform-provider-aws_v5.9.0_x5",
        );
        let newest = install(
            &providers,
            "registry.terraform.io/hashicorp/aws",
            "5.10.0",
            "terraform-provider-aws_v5.10.0_x5",
        );
        install(
            &providers,
            "registry.terraform.io/hashicorp/aws",
            "5.10.0-beta1",
            "terraform-provider-aws_v5.10.0-beta1_x5",
        );
        install(
            &providers,
            "registry.terraform.io/hashicorp/awscc",
            "9.0.0",
            "terraform-provider-awscc_v9.0.0_x5",
        );
        let paths = SearchPaths {
            plugin_dirs: Vec::new(),
            config_dir: config.path().to_owned(),
            ..SearchPaths::default()
        };
        assert_eq!(find_binary(&aws(), &paths).unwrap(), newest);

        // `TF_DATA_DIR` moves the whole data directory, providers included.
        fs::rename(
            config.path().join(".terraform"),
            config.path().join("tfdata"),
        )
        .unwrap();
        let error = find_binary(&aws(), &paths).unwrap_err().to_string();
        assert!(error.contains(".terraform/providers`"), "{error}");
        let moved = SearchPaths {
            data_dir: Some(PathBuf::from("tfdata")),
            ..paths
        };
        assert_eq!(
            find_binary(&aws(), &moved).unwrap(),
            config.path().join("tfdata").join(
                newest
                    .strip_prefix(config.path().join(".terraform"))
                    .unwrap()
            )
        );
    }

    fn write_lock(config: &Path, version: &str, hashes: &[String]) {
        let hashes = hashes
            .iter()
            .map(|hash| format!("    \"{hash}\",\n"))
            .collect::<Vec<_>>()
            .concat();
        fs::write(
            config.join(LOCK_FILE),
            format!(
                "# This file is maintained automatically by \"terraform init\".\nprovider \"registry.terraform.io/hashicorp/aws\" {{\n  version     = \"{version}\"\n  constraints = \"~> 5.0\"\n  hashes = [\n{hashes}  ]\n}}\n"
            ),
        )
        .unwrap();
    }

    #[test]
    fn the_lock_file_chooses_the_version() {
        let config = tempfile::tempdir().unwrap();
        let providers = config.path().join(".terraform/providers");
        let locked = install(
            &providers,
            "registry.terraform.io/hashicorp/aws",
            "5.9.0",
            "terraform-provider-aws_v5.9.0_x5",
        );
        install(
            &providers,
            "registry.terraform.io/hashicorp/aws",
            "5.10.0",
            "terraform-provider-aws_v5.10.0_x5",
        );
        let checksum =
            crate::reconcile::plugin::verify::package_hash(locked.parent().unwrap()).unwrap();
        write_lock(config.path(), "5.9.0", &["zh:00ff".to_owned(), checksum]);
        let paths = SearchPaths {
            plugin_dirs: Vec::new(),
            config_dir: config.path().to_owned(),
            ..SearchPaths::default()
        };
        assert_eq!(find_binary(&aws(), &paths).unwrap(), locked);

        fs::remove_dir_all(providers.join("registry.terraform.io/hashicorp/aws/5.9.0")).unwrap();
        let error = find_binary(&aws(), &paths).unwrap_err().to_string();
        assert!(
            error.contains(
                "registry.terraform.io/hashicorp/aws 5.9.0 (locked in .terraform.lock.hcl)"
            ),
            "{error}"
        );
        assert!(error.contains("run `terraform init`"), "{error}");
    }

    #[test]
    fn a_package_the_lock_file_does_not_record_is_refused() {
        let config = tempfile::tempdir().unwrap();
        let binary = install(
            &config.path().join(".terraform/providers"),
            "registry.terraform.io/hashicorp/aws",
            "5.9.0",
            "terraform-provider-aws_v5.9.0_x5",
        );
        let package = binary.parent().unwrap().to_owned();
        let checksum = crate::reconcile::plugin::verify::package_hash(&package).unwrap();
        write_lock(config.path(), "5.9.0", std::slice::from_ref(&checksum));
        let mut paths = SearchPaths {
            plugin_dirs: Vec::new(),
            config_dir: config.path().to_owned(),
            ..SearchPaths::default()
        };
        verify_providers(
            [r#"provider["registry.terraform.io/hashicorp/aws"].west"#],
            &mut paths,
        )
        .unwrap();
        assert_eq!(paths.verified[&aws()], binary);

        // One byte changed: Terraform's words, and the hint.
        fs::write(&binary, b"#!/bin/sh\r").unwrap();
        paths.verified.clear();
        let error = find_binary(&aws(), &paths).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "the cached package for registry.terraform.io/hashicorp/aws 5.9.0 (in `{}`) does not match any of the checksums recorded in the dependency lock file",
                package.display()
            )
        );
        assert!(error.hint().unwrap().contains("terraform init -upgrade"));
        assert!(error.hint().unwrap().contains("terraform providers lock"));

        // Not listed at all.
        let error = find_binary(&ProviderSource::parse("hashicorp/null"), &paths).unwrap_err();
        assert!(
            error.to_string().starts_with(
                "provider registry.terraform.io/hashicorp/null: required by this state but no version is selected in `"
            ),
            "{error}"
        );
        assert!(error.hint().unwrap().contains("terraform init -upgrade"));

        // A lock entry without checksums is not checked, as in Terraform.
        write_lock(config.path(), "5.9.0", &[]);
        assert_eq!(find_binary(&aws(), &paths).unwrap(), binary);
    }

    #[test]
    fn a_dev_override_runs_unverified_from_its_directory() {
        let config = tempfile::tempdir().unwrap();
        // The lock file lists another provider only: without the override, aws is refused.
        fs::write(
            config.path().join(LOCK_FILE),
            "provider \"registry.terraform.io/hashicorp/null\" {\n  version = \"3.2.0\"\n}\n",
        )
        .unwrap();
        let dev = tempfile::tempdir().unwrap();
        let binary = dev.path().join("terraform-provider-aws");
        fs::write(&binary, b"#!/bin/sh\n").unwrap();
        let mut paths = SearchPaths {
            config_dir: config.path().to_owned(),
            ..SearchPaths::default()
        };
        assert!(matches!(
            find_binary(&aws(), &paths),
            Err(DiscoverError::NotLocked { .. })
        ));
        paths.dev_overrides.insert(aws(), dev.path().to_owned());
        assert_eq!(find_binary(&aws(), &paths).unwrap(), binary);
        fs::remove_file(&binary).unwrap();
        let error = find_binary(&aws(), &paths).unwrap_err().to_string();
        assert!(
            error.starts_with("no `terraform-provider-aws*` executable in `"),
            "{error}"
        );
    }

    #[test]
    fn plugin_dirs_replace_the_configuration_and_may_be_flat() {
        let config = tempfile::tempdir().unwrap();
        install(
            &config.path().join(".terraform/providers"),
            "registry.terraform.io/hashicorp/aws",
            "5.0.0",
            "terraform-provider-aws",
        );
        let flat = tempfile::tempdir().unwrap();
        let binary = flat.path().join("terraform-provider-aws_v3.39.0_x5");
        fs::write(&binary, b"").unwrap();
        fs::write(flat.path().join("terraform-provider-awscc"), b"").unwrap();
        let paths = SearchPaths {
            plugin_dirs: vec![config.path().join("nothing here"), flat.path().to_owned()],
            config_dir: config.path().to_owned(),
            ..SearchPaths::default()
        };
        assert_eq!(find_binary(&aws(), &paths).unwrap(), binary);
        let error = find_binary(&ProviderSource::parse("hashicorp/null"), &paths)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("no `terraform-provider-null` binary for registry.terraform.io/hashicorp/null under `"), "{error}");
    }

    #[test]
    fn orders_versions_semantically() {
        assert_eq!(compare_versions("5.10.0", "5.9.9"), Ordering::Greater);
        assert_eq!(compare_versions("5.10.0-beta1", "5.10.0"), Ordering::Less);
        assert_eq!(compare_versions("1.0.0", "1.0.0"), Ordering::Equal);
    }
}
