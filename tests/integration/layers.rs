//! The cut the compiler enforces once a crate's manifest is right: the analyses
//! (`crates/analysis`) and the configuration reader (`crates/tfconfig`) depend on nothing that
//! talks to a network or needs an async runtime, nor on `statectl-reconcile`, `statectl-backend` or
//! the CLI (ARCHITECTURE.md). The compiler refuses an import the manifest does not list; this test
//! refuses the manifest line that would let one in: each crate's dependencies are an allow-list.

use crate::builder::root;

/// The names in the `[dependencies]` tables (target-specific ones too) of a crate's manifest;
/// dev-dependencies are the tests' own, and `[workspace.dependencies]` only sets versions.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = (line.ends_with(".dependencies]") || line == "[dependencies]")
                && line != "[workspace.dependencies]";
            continue;
        }
        if !in_dependencies || line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((name, _)) = line.split_once('=') {
            names.push(name.trim().to_owned());
        }
    }
    names
}

#[test]
fn the_analyses_and_the_configuration_reader_depend_only_on_pure_crates() {
    let allowed: &[(&str, &[&str])] = &[
        (
            "crates/analysis",
            &[
                "statectl-state",
                "statectl-tfconfig",
                "serde",
                "serde_json",
                "thiserror",
                "toml",
                "memchr",
            ],
        ),
        (
            "crates/tfconfig",
            &["statectl-state", "hcl-rs", "serde_json"],
        ),
    ];
    for (folder, allowed) in allowed {
        let manifest = std::fs::read_to_string(root().join(folder).join("Cargo.toml")).unwrap();
        let names = dependencies(&manifest);
        assert!(
            names.contains(&"statectl-state".to_owned()),
            "{folder}: {names:?}"
        );
        let strangers: Vec<&String> = names
            .iter()
            .filter(|name| !allowed.contains(&name.as_str()))
            .collect();
        assert!(
            strangers.is_empty(),
            "{folder}/Cargo.toml: {strangers:?} not in the allow-list; a crate that talks to the network, \
             needs tokio, or is reconcile, a backend or the CLI must never be one (ARCHITECTURE.md)"
        );
    }
}

/// The line of `name` in the `[dependencies]` table of `manifest`, trimmed.
fn dependency_line<'a>(manifest: &'a str, name: &str) -> Option<&'a str> {
    manifest.lines().map(str::trim).find(|line| {
        line.split_once('=')
            .is_some_and(|(key, _)| key.trim() == name)
    })
}

#[test]
fn the_encryption_crate_takes_the_secret_without_an_http_client() {
    let read = |path: &str| std::fs::read_to_string(root().join(path)).unwrap();
    let workspace = read("Cargo.toml");
    let entry = dependency_line(&workspace, "statectl-net").unwrap();
    assert!(entry.contains("default-features = false"), "{entry}");
    let net = read("crates/net/Cargo.toml");
    for http_only in ["reqwest", "httpdate"] {
        let line = dependency_line(&net, http_only).unwrap();
        assert!(line.contains("optional = true"), "{line}");
    }
    assert!(net.contains("http = [\"dep:reqwest\", \"dep:httpdate\"]"));
    let encryption = read("crates/encryption/Cargo.toml");
    let line = dependency_line(&encryption, "statectl-net").unwrap();
    assert!(!line.contains("http"), "{line}");
}

/// statectl is installed from crates.io (the GitHub Action's `version`), and `cargo publish` takes
/// a crate only when every crate it depends on is published too: none of the workspace crates it
/// needs to build may say `publish = false` (the simulator, a dev-dependency, may).
#[test]
fn every_crate_statectl_is_built_from_can_be_published() {
    let read = |path: &str| std::fs::read_to_string(root().join(path)).unwrap();
    let mut pending = vec![".".to_owned()];
    let mut seen = Vec::new();
    while let Some(folder) = pending.pop() {
        let manifest = read(&format!("{folder}/Cargo.toml"));
        let unpublished = manifest
            .lines()
            .any(|line| line.trim().replace(' ', "") == "publish=false");
        assert!(!unpublished, "{folder}/Cargo.toml says `publish = false`");
        for name in dependencies(&manifest) {
            if let Some(crate_folder) = name.strip_prefix("statectl-") {
                let crate_folder = format!("crates/{crate_folder}");
                if !seen.contains(&crate_folder) {
                    seen.push(crate_folder.clone());
                    pending.push(crate_folder);
                }
            }
        }
    }
    assert!(seen.len() >= 7, "{seen:?}");
}

/// `unsafe` lives in three files: the read-only mapping of a state and its SIGBUS guard, the UTF-8
/// check that joins parts checked on several threads into one `&str`, and the JSON readers' SSE2
/// searches (intrinsics a function may call safely only when marked for the feature). The workspace
/// lint is `deny` so those files can allow it; this keeps every other file as `forbid` kept them.
#[test]
fn unsafe_is_allowed_in_the_state_mapping_the_utf8_check_and_the_sse2_searches_alone() {
    fn rust_files(folder: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(folder).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() && name != "target" && name != ".git" {
                rust_files(&path, found);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                found.push(path);
            }
        }
    }
    let mut files = Vec::new();
    for folder in ["src", "crates", "tests", "benches", "fuzz"] {
        let folder = root().join(folder);
        if folder.is_dir() {
            rust_files(&folder, &mut files);
        }
    }
    assert!(files.len() > 100, "{}", files.len());
    let allowed = [
        root().join("crates/state/src/state/mapped.rs"),
        root().join("crates/state/src/json/utf8.rs"),
        root().join("crates/state/src/json/wide.rs"),
    ];
    let mut allowing: Vec<_> = files
        .iter()
        // Any mention of the lint in Rust code is an `allow` or `expect` of it (however rustfmt
        // wraps the attribute); this file spells it in two parts.
        .filter(|path| {
            std::fs::read_to_string(path)
                .unwrap()
                .contains(&format!("{}_code", "unsafe"))
        })
        .collect();
    allowing.sort();
    let mut allowed: Vec<_> = allowed.iter().collect();
    allowed.sort();
    assert_eq!(allowing, allowed);
}
