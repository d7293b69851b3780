//! Every console example of README.md and of the man pages runs, as written, against the files in
//! the repository, so the documentation cannot drift from the binary.
//!
//! README.md: each ```console block runs in a fresh copy of `testdata/` (so examples may write),
//! from the copy's root or from the folder a `<!-- console: in DIR -->` line right before the
//! block names; its commands run in order, by bash, with this build's `statectl` first on PATH.
//! A `$ ` line is a command; the lines after it, up to the next command, are its output
//! (stdout and stderr as a terminal shows them together). In the output, a line `...` stands for
//! any number of lines and `[..]` for any text within a line. A command shown without output is
//! checked for its exit status only. The status is 0 unless the command's comment says `exit N`.
//! A block that cannot run here says why in a `<!-- console: skip: REASON -->` line, and the
//! reason is reported (see `crate::skip`).
//!
//! Man pages: each `$ ` line of an EXAMPLES section runs from the root of a copy, with the exit
//! status its description states (`exit N`, else 0).
//!
//! When an output changed on purpose, `STATECTL_UPDATE_DOCS=1 cargo test --test integration docs`
//! writes the actual outputs into README.md; review the diff and put back the `...` and `[..]`
//! where an output varies from run to run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::builder::{assert_contains, root};

/// One command of an example and what it must do.
#[derive(Debug)]
struct Example {
    /// `README.md:LINE` or `man/statectl-scan.1`.
    place: String,
    command: String,
    code: i32,
    /// The expected output, or `None` when the example shows none.
    expected: Option<Vec<String>>,
    /// The 0-based lines of README.md the expected output takes (for the update).
    lines: std::ops::Range<usize>,
}

/// A console block: where it runs and its examples, or why it does not.
#[derive(Debug)]
struct Block {
    place: String,
    folder: Option<String>,
    skip: Option<String>,
    examples: Vec<Example>,
}

/// The exit status a command's comment states (`# ... exit 3 ...`), else 0.
fn stated_code(command: &str) -> i32 {
    let Some(comment) = comment_of(command) else {
        return 0;
    };
    comment
        .split("exit ")
        .skip(1)
        .find_map(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|digits| digits.parse().ok())
        })
        .unwrap_or(0)
}

/// The text after a ` #` that is outside quotes, as bash reads a comment.
fn comment_of(command: &str) -> Option<&str> {
    let mut quote = None;
    let mut previous = ' ';
    for (at, c) in command.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(open), _) if c == open => quote = None,
            (None, '#') if previous.is_whitespace() => return Some(&command[at + 1..]),
            _ => {}
        }
        previous = c;
    }
    None
}

fn readme_blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        if lines[at].trim_end() != "```console" {
            at += 1;
            continue;
        }
        let directive = lines[..at]
            .iter()
            .rev()
            .find(|line| !line.trim().is_empty())
            .and_then(|line| {
                line.trim()
                    .strip_prefix("<!-- console:")
                    .and_then(|rest| rest.strip_suffix("-->"))
            })
            .map(str::trim);
        let mut block = Block {
            place: format!("README.md:{}", at + 1),
            folder: directive
                .and_then(|directive| directive.strip_prefix("in "))
                .map(str::to_owned),
            skip: directive
                .and_then(|directive| directive.strip_prefix("skip:"))
                .map(|reason| reason.trim().to_owned()),
            examples: Vec::new(),
        };
        at += 1;
        while at < lines.len() && lines[at].trim_end() != "```" {
            let line = lines[at];
            if let Some(command) = line.strip_prefix("$ ") {
                block.examples.push(Example {
                    place: format!("README.md:{}", at + 1),
                    command: command.to_owned(),
                    code: stated_code(command),
                    expected: None,
                    lines: at + 1..at + 1,
                });
            } else if let Some(example) = block.examples.last_mut() {
                example
                    .expected
                    .get_or_insert_with(Vec::new)
                    .push(line.to_owned());
                example.lines.end = at + 1;
            } else {
                panic!(
                    "README.md:{}: a console block starts with a command (`$ ...`); an output alone is a ```text block",
                    at + 1
                );
            }
            at += 1;
        }
        for example in &mut block.examples {
            // Blank lines after a command's output separate it from the next command.
            if let Some(expected) = &mut example.expected {
                while expected.last().is_some_and(|line| line.trim().is_empty()) {
                    expected.pop();
                    example.lines.end -= 1;
                }
                if expected.is_empty() {
                    example.expected = None;
                }
            }
        }
        blocks.push(block);
        at += 1;
    }
    blocks
}

/// roff's escapes in what clap_mangen and `cli::man` write.
fn unroff(text: &str) -> String {
    text.replace("\\fB", "")
        .replace("\\fR", "")
        .replace("\\fI", "")
        .replace("\\-", "-")
        .replace("\\*(Aq", "'")
        .replace("\\(aq", "'")
        .replace("\\(dq", "\"")
        .replace("\\&", "")
        .replace("\\e", "\\")
        .replace("\\\\", "\\")
}

fn man_examples(page: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(page).unwrap();
    let name = format!("man/{}", page.file_name().unwrap().to_string_lossy());
    let Some(section) = text.split(".SH EXAMPLES").nth(1) else {
        return Vec::new();
    };
    let section = section.split("\n.SH ").next().unwrap_or_default();
    let mut examples = Vec::new();
    let mut description = String::new();
    for line in section.lines() {
        let line = unroff(line);
        if let Some(command) = line.strip_prefix("$ ") {
            examples.push(Example {
                place: name.clone(),
                code: stated_code(&format!("x # {description}")),
                command: command.to_owned(),
                expected: None,
                lines: 0..0,
            });
        } else if !line.starts_with('.') && !line.trim().is_empty() {
            description = line;
        }
    }
    examples
}

/// A fresh copy of `testdata/` in a temporary folder, where examples may write.
fn scratch() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    copy_folder(&root().join("testdata"), &folder.path().join("testdata"));
    folder
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_folder(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs `command` with bash in `folder`: exit code and what a terminal would show (stdout and
/// stderr together, in the order written).
fn run(command: &str, folder: &Path) -> (i32, String) {
    let binaries = PathBuf::from(env!("CARGO_BIN_EXE_statectl"))
        .parent()
        .unwrap()
        .to_owned();
    let path = std::env::join_paths(std::iter::once(binaries).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let output = Command::new("bash")
        .arg("-c")
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(folder)
        .env_clear()
        .env("PATH", path)
        .env("HOME", folder)
        .env("COLUMNS", "100")
        .output()
        .expect("bash runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// Whether `actual` matches `expected`, where a line `...` is any number of lines and `[..]`
/// any text within a line.
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first.trim() == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, others)| line_matches(first, line) && matches(rest, others)),
    }
}

fn line_matches(expected: &str, actual: &str) -> bool {
    let (expected, actual) = (expected.trim_end(), actual.trim_end());
    let mut pieces = expected.split("[..]");
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    for (index, piece) in pieces.iter().enumerate() {
        if index + 1 == pieces.len() {
            return rest.ends_with(piece);
        }
        match rest.find(piece) {
            Some(found) => rest = &rest[found + piece.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Runs every example of `examples` in `folder`, in order; returns the failures, and the actual
/// outputs of the README examples whose output differs (for the update).
fn check(
    examples: &[Example],
    folder: &Path,
    failures: &mut Vec<String>,
    updates: &mut Vec<(std::ops::Range<usize>, String)>,
) {
    for example in examples {
        let (code, output) = run(&example.command, folder);
        let actual: Vec<&str> = output.lines().collect();
        let output_ok = example
            .expected
            .as_ref()
            .is_none_or(|expected| matches(expected, &actual));
        if code == example.code && output_ok {
            continue;
        }
        let mut report = format!(
            "{}: `{}`: exit {code} (expected {})\n",
            example.place, example.command, example.code
        );
        if let Some(expected) = &example.expected {
            let _ = write!(
                report,
                "--- expected (lines {}-{})\n{}\n--- actual\n{output}",
                example.lines.start + 1,
                example.lines.end,
                expected.join("\n")
            );
            if !output_ok {
                updates.push((example.lines.clone(), output.clone()));
            }
        } else {
            let _ = write!(report, "--- output\n{output}");
        }
        failures.push(report);
    }
}

#[test]
fn every_console_example_of_the_readme_runs_as_written() {
    let path = root().join("README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let blocks = readme_blocks(&text);
    assert!(blocks.len() >= 5, "README.md has console blocks");
    let (mut failures, mut updates) = (Vec::new(), Vec::new());
    for block in &blocks {
        if let Some(reason) = &block.skip {
            crate::skip::example(&block.place, reason);
            continue;
        }
        assert!(
            !block.examples.is_empty(),
            "{}: a console block without commands",
            block.place
        );
        let copy = scratch();
        let folder = block
            .folder
            .as_deref()
            .map_or_else(|| copy.path().to_owned(), |dir| copy.path().join(dir));
        assert!(
            folder.is_dir(),
            "{}: no folder {}",
            block.place,
            folder.display()
        );
        check(&block.examples, &folder, &mut failures, &mut updates);
    }
    if std::env::var_os("STATECTL_UPDATE_DOCS").is_some() && !updates.is_empty() {
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        updates.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
        for (range, output) in updates {
            lines.splice(range, output.lines().map(str::to_owned));
        }
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    }
    assert!(
        failures.is_empty(),
        "{} README example(s) differ from what the binary does:\n\n{}\n\
         If the change is intended: STATECTL_UPDATE_DOCS=1 cargo test --test integration docs \
         writes the actual outputs into README.md (then review the diff and put back `...` and \
         `[..]` where an output varies); an exit status is in the command's comment (`# exit N`).",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_example_of_the_man_pages_runs_as_written() {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("man"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    pages.sort();
    let (mut failures, mut updates) = (Vec::new(), Vec::new());
    for page in &pages {
        let examples = man_examples(page);
        assert!(!examples.is_empty(), "{} has no examples", page.display());
        let copy = scratch();
        check(&examples, copy.path(), &mut failures, &mut updates);
    }
    assert!(
        failures.is_empty(),
        "{} man page example(s) fail (they are in src/cli/man.rs; `cargo run -- generate` writes man/):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_matcher_takes_elisions_and_comments() {
    let expected: Vec<String> = ["a", "...", "c [..] e", "[..]"]
        .iter()
        .map(|line| (*line).to_owned())
        .collect();
    assert!(matches(&expected, &["a", "b", "b", "c d e", "anything"]));
    assert!(matches(&expected, &["a", "c  e", ""]));
    assert!(!matches(&expected, &["a", "c d f", "x"]));
    assert!(!matches(&expected, &["a", "c d e"]));
    assert_eq!(stated_code("statectl scan x   # exit 1: findings"), 1);
    assert_eq!(stated_code("statectl query '$.a # exit 3'"), 0);
    assert_eq!(stated_code("statectl list"), 0);
    assert_eq!(
        unroff("\\fB$ statectl list \\*(Aqmodule.app[\"blue\"]\\*(Aq \\-\\-format json\\fR"),
        "$ statectl list 'module.app[\"blue\"]' --format json"
    );
}

/// The README's first command works as written: `cargo run` picks statectl although the workspace
/// builds the simulator's binary too (`default-run`), and the scan it runs shows findings, not
/// errors. Run with the binary this test run built (the same code, without a nested release build).
#[test]
fn the_readmes_first_command_works_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme
        .split("## Set up and try it")
        .nth(1)
        .expect("README.md has `Set up and try it`");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a ```sh block");
    let arguments = block
        .trim()
        .strip_prefix("cargo run --release -- ")
        .unwrap_or_else(|| panic!("the first command runs statectl through cargo: {block}"));
    let statectl = crate::packaging::cargo_package("statectl");
    assert_eq!(
        statectl["default_run"], "statectl",
        "`cargo run` needs to know the binary"
    );
    let output = crate::builder::Test::new()
        .args(arguments.split_whitespace())
        .run()
        .code(1);
    assert_contains(&output.stdout, "azapi_resource.aks");
    assert_contains(&output.stderr, "hint: tainted: ");
    assert!(
        !output.stderr.lines().any(|line| line.starts_with("error:")),
        "the first thing a new user sees has no error:\n{}",
        output.stderr
    );
}
