//! The integration tests this run skipped, one ignored test each (with its reason), so that a
//! skip is counted in a summary line instead of hiding among the passes. `integration` records
//! them in a ledger as it skips (tests/integration/skip.rs); cargo runs this target right after
//! it, as a child of the same `cargo test`, and this target reads the ledger and removes it.

use std::path::Path;

use libtest_mimic::{Arguments, Trial};

/// libtest's options that take a value (the next argument, unless written `--option=value`).
const TAKES_A_VALUE: &[&str] = &[
    "--test-threads",
    "--skip",
    "--format",
    "--color",
    "--logfile",
    "-Z",
];

/// The arguments cargo passes on, with the name filters apart: libtest takes several
/// (`cargo test -- a b`), libtest-mimic one.
fn split_filters() -> (Vec<String>, Vec<String>) {
    let mut options = Vec::new();
    let mut filters = Vec::new();
    let mut arguments = std::env::args();
    options.extend(arguments.next());
    while let Some(argument) = arguments.next() {
        if TAKES_A_VALUE.contains(&argument.as_str()) {
            options.push(argument);
            options.extend(arguments.next());
        } else if argument.starts_with('-') {
            options.push(argument);
        } else {
            filters.push(argument);
        }
    }
    (options, filters)
}

fn main() {
    let (options, filters) = split_filters();
    let arguments = Arguments::from_iter(options);
    let ledger = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("skips")
        .join(format!("{}.tsv", std::os::unix::process::parent_id()));
    let text = std::fs::read_to_string(&ledger).unwrap_or_default();
    // `--list` (as IDEs and nextest ask) must not consume what the run will report.
    if !arguments.list {
        let _ = std::fs::remove_file(&ledger);
    }
    let mut seen = std::collections::HashSet::new();
    let wanted = |test: &str| {
        filters.is_empty()
            || filters.iter().any(|filter| {
                if arguments.exact {
                    test == filter
                } else {
                    test.contains(filter.as_str())
                }
            })
    };
    let trials: Vec<Trial> = text
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .filter(|(test, _)| wanted(test) && seen.insert((*test).to_owned()))
        .map(|(test, why)| {
            Trial::test(test.to_owned(), || Ok(()))
                .with_ignored_flag(true)
                .with_kind(why.to_owned())
        })
        .collect();
    libtest_mimic::run(&arguments, trials).exit();
}
