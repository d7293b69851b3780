//! The layer cut inside the root package, which the compiler cannot enforce there: the analyses
//! (`src/scan`, `src/diff`, `src/policy`, `src/audit`) use only the state engine, never
//! `statectl-reconcile`, `statectl-backend` or the CLI (ARCHITECTURE.md).

use std::path::Path;

use crate::builder::root;

/// Every `.rs` file below `folder`.
fn sources(folder: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_analyses_use_neither_reconcile_nor_the_backends_nor_the_cli() {
    let mut files = Vec::new();
    for analysis in ["scan", "diff", "policy", "audit"] {
        sources(&root().join("src").join(analysis), &mut files);
    }
    assert!(files.len() > 20, "{files:?}");
    let forbidden = [
        "reconcile::",
        "statectl_reconcile",
        "backend::",
        "statectl_backend",
        "crate::cli",
    ];
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if let Some(word) = forbidden.iter().find(|word| code.contains(*word)) {
                found.push(format!("{}:{}: {word}", file.display(), number + 1));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
