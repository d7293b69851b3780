//! JSONPath through the binary and against jsonpath-rust: hostile paths and hostile states end in one
//! line within the budget (issue 24, item 7), states as deep as the parser reads query fine (item 20),
//! and the engine selects what jsonpath-rust selects on the corpus and on generated documents, for
//! the paths where jsonpath-rust follows RFC 9535 (it orders the results of several selectors in one
//! segment wrongly, gets nested filters wrong, and counts no nodes as Nothing rather than 0; the
//! compliance suite pins ours, see `json::path::tests`).

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use jsonpath_rust::JsonPath as _;
use serde_json::{Value, json};
use statectl::json::path::{Document, JsonPath, Limits};

use crate::builder::{Output, Test, assert_starts_with, root, test_and_corpus_states};
use crate::files::folder_with;
use crate::properties::mutations;

/// A version-4 state with one `terraform_data` whose attributes are `attributes` (raw JSON).
fn state_with(attributes: &str) -> String {
    format!(
        r#"{{"version": 4, "terraform_version": "1.5.0", "serial": 1, "lineage": "l", "outputs": {{}}, "resources": [{{"mode": "managed", "type": "terraform_data", "name": "deep", "provider": "provider[\"terraform.io/builtin/terraform\"]", "instances": [{{"schema_version": 0, "attributes": {attributes}, "sensitive_attributes": []}}]}}]}}
"#
    )
}

/// `[[[...1...]]]`: `depth` arrays around `inner`.
fn nested(depth: usize, inner: &str) -> String {
    format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
}

/// Runs statectl with `args` in `folder` as [`Test`] does, but guarded: a budget that does not hold
/// ran 23 to 33 s into an allocation abort of 7.6 GB, so the run gets 2 GiB of address space at most
/// and is stopped if it has not ended within a minute, a failure with a message rather than a hung
/// test run or a machine out of memory. Not a timing assertion: a run within its budget ends in
/// milliseconds. Output goes to files, so a run printing without end cannot block on a pipe.
fn run_guarded(args: &[&str], folder: &Path) -> Output {
    const GUARD: Duration = Duration::from_secs(60);
    const ADDRESS_SPACE: u64 = 2 << 30;
    let out = tempfile::tempfile().unwrap();
    let err = tempfile::tempfile().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_statectl"))
        .args(args)
        .current_dir(folder)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("COLUMNS", "100")
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(err.try_clone().unwrap())
        .spawn()
        .unwrap();
    // Set from outside once it runs (setting it in the child before exec would need `unsafe`).
    let limit = rustix::process::Rlimit {
        current: Some(ADDRESS_SPACE),
        maximum: Some(ADDRESS_SPACE),
    };
    rustix::process::prlimit(
        Some(rustix::process::Pid::from_child(&child)),
        rustix::process::Resource::As,
        limit,
    )
    .unwrap();
    let deadline = Instant::now() + GUARD;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`statectl {}` still ran after {GUARD:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |mut file: std::fs::File| {
        use std::io::{Read, Seek};
        let mut text = String::new();
        file.rewind().unwrap();
        file.read_to_string(&mut text).unwrap();
        text
    };
    Output {
        code: status.code().unwrap_or(-1),
        stdout: read(out),
        stderr: read(err),
    }
}

/// The state of the report (issue 24, item 7): 529 bytes, a 100-deep array among the attributes.
fn hostile_state() -> String {
    state_with(&format!(r#"{{"id": "x", "deep": {}}}"#, nested(100, "1")))
}

/// Regression (issue 24, item 7): `query '$..*..*..*..*'` over a 529-byte state holding a 100-deep
/// array ran 23.6 s and 7.6 GB into an allocation abort (exit 134). Now it stops within the state's
/// budget with one line naming the expression (and a hint), exit 2, nothing on stdout.
#[test]
fn a_hostile_query_fails_in_one_line_within_its_budget() {
    let folder = tempfile::tempdir().unwrap();
    let text = hostile_state();
    std::fs::write(folder.path().join("f.tfstate"), &text).unwrap();
    for path in ["$..*..*..*..*", "$..*..*..*..*..*", "$..[?@..*..*..*..*]"] {
        let output = run_guarded(&["query", path, "f.tfstate"], folder.path()).code(2);
        let prefix = format!(
            "error: JSONPath `{path}` needs more work than this {}-byte state allows (more than ",
            text.len()
        );
        assert_starts_with(&output.stderr, &prefix);
        assert_eq!(output.stderr.lines().count(), 2, "{}", output.stderr);
        assert!(output.stderr.contains("\nhint: name the members to follow"));
        assert_eq!(output.stdout, "");
    }
    // What a careful user asks of the same state still answers.
    run_guarded(
        &["query", "--compact", "$..deep[0][0][0]", "f.tfstate"],
        folder.path(),
    )
    .code(0);
}

/// Regression (issue 24, item 7): a `.statectl.toml` rule path `$..*..*..*..*..*`, picked up by
/// `scan` from the working directory, ran 33 s and 7.6 GB into an allocation abort over the same
/// state. Now `scan` and `audit` (which read the same rules) end with one line naming the rule, the
/// instance and the expression, exit 2.
#[test]
fn a_hostile_rule_path_fails_the_scan_in_one_line() {
    let folder = folder_with("f.tfstate", hostile_state());
    std::fs::write(
        folder.path().join(".statectl.toml"),
        "[[resource]]\ntype = \"terraform_data\"\npath = \"$..*..*..*..*..*\"\npending = [\"x\"]\n",
    )
    .unwrap();
    let line = "the `path` of the rule for `terraform_data`, at `terraform_data.deep`: JSONPath `$..*..*..*..*..*` needs more work than";
    for command in ["scan", "audit"] {
        let output = run_guarded(&[command, "f.tfstate"], folder.path()).code(2);
        let naming: Vec<&str> = output
            .stderr
            .lines()
            .filter(|text| text.contains("JSONPath"))
            .collect();
        assert_eq!(naming.len(), 1, "{command}: {}", output.stderr);
        assert!(naming[0].contains(line), "{command}: {}", output.stderr);
    }
}

/// Regression (issue 24, item 20): `query` failed from depth 123 (serde_json's recursion limit) while
/// `list` read 9,000. It now reads what the parser reads: 10,000 levels in all.
#[test]
fn query_reads_states_as_deep_as_the_parser_accepts() {
    let folder = tempfile::tempdir().unwrap();
    let state = folder.path().join("deep.tfstate");
    // The attributes sit five levels down; 9,993 more make 10,000 with the leaf object.
    let deep = nested(9_993, r#"{"leaf": "x"}"#);
    std::fs::write(&state, state_with(&format!(r#"{{"deep": {deep}}}"#))).unwrap();
    Test::new().args(["list"]).arg(&state).run().code(0);
    Test::new()
        .args(["query", "--compact", "$..leaf"])
        .arg(&state)
        .run()
        .stdout("[\"x\"]\n");
    let whole = Test::new()
        .args([
            "query",
            "--compact",
            "$.resources[0].instances[0].attributes.deep",
        ])
        .arg(&state)
        .run()
        .code(0);
    // Compared without printing: a failure would show 20,000 brackets twice.
    let compact = nested(9_993, r#"{"leaf":"x"}"#);
    assert!(
        whole.stdout == format!("[{compact}]\n"),
        "the deep value differs"
    );
    // Pretty, ten thousand levels would indent quadratically: refused, pointing at --compact.
    Test::new()
        .args(["query", "$..deep"])
        .arg(&state)
        .run()
        .code(2)
        .stderr_contains("hint: `--compact` prints the results on one line");
    // One level more is the parser's refusal, not the query's.
    let deeper = folder.path().join("deeper.tfstate");
    std::fs::write(
        &deeper,
        state_with(&format!(
            r#"{{"deep": {}}}"#,
            nested(9_994, r#"{"leaf": "x"}"#)
        )),
    )
    .unwrap();
    Test::new()
        .args(["query", "$..leaf"])
        .arg(&deeper)
        .run()
        .code(2)
        .stderr_contains("nested deeper than 10000 levels");
}

/// Paths on which jsonpath-rust 1.0 follows RFC 9535, for the differential checks.
const PATHS: &[&str] = &[
    "$",
    "$.*",
    "$..*",
    "$.resources[*].type",
    "$.resources[*].instances[*].attributes.id",
    "$.resources[?@.mode == 'data'].name",
    "$.resources[?@.type == 'terraform_data' && @.name != 'x'].instances[0].attributes",
    "$..instances[?@.status == 'tainted']",
    "$..instances[?!@.deposed].index_key",
    "$..attributes[?@ == null]",
    "$..[?@.value].value",
    "$..[-1]",
    "$..[0]",
    "$.resources[1:3]",
    "$.resources[::-1].name",
    "$.resources[-2:].mode",
    "$..outputs.*",
    "$..[?length(@) > 3]",
    "$..[?count(@.*) == 2]",
    "$..sensitive_attributes[*][*].value",
    "$..dependencies[?@ != 'x']",
    "$..schema_version",
    "$.resources[?@.instances[0].schema_version > 0].type",
];

/// `path` through our engine over `text` (compact), and through jsonpath-rust over the decoded value.
fn both(text: &str, value: &Value, path: &str) -> (String, String) {
    let document = Document::parse(text).unwrap();
    let ours = JsonPath::parse(path)
        .unwrap()
        .select(&document, Limits::for_document(text.len()))
        .unwrap()
        .to_json(false)
        .unwrap();
    let theirs: Vec<Value> = value.query(path).unwrap().into_iter().cloned().collect();
    (ours, serde_json::to_string(&theirs).unwrap())
}

/// Every corpus and test-data state, every path: the same nodes as jsonpath-rust.
#[test]
fn selects_what_jsonpath_rust_selects_on_real_states() {
    let files = test_and_corpus_states();
    let mut compared = 0;
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        // jsonpath-rust needs a tree; states it cannot decode (deeper than serde_json goes) are
        // checked by the tests above.
        let Ok(value) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        for path in PATHS {
            let (ours, theirs) = both(&text, &value, path);
            assert_eq!(ours, theirs, "{} {path}", display(file));
            compared += 1;
        }
    }
    assert!(compared > 100, "only {compared} comparisons");
}

/// Every corpus and test-data state statectl reads, every path: the document `query` hands the
/// walker (the spans, members and elements the parse read, each instance's lack of a `status`,
/// the members it noted for the path) selects what walking the text selects.
#[test]
fn the_parsed_state_selects_what_its_text_selects_on_real_states() {
    let files = test_and_corpus_states();
    let mut compared = 0;
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let Ok(walked) = Document::parse(&text) else {
            continue;
        };
        for path in PATHS
            .iter()
            .chain(&["$..instances[?@.status]", "$..status"])
        {
            let path = JsonPath::parse(path).unwrap();
            let parsed = match statectl::state::query::noting(&path) {
                Some(noting) => statectl::state::parse::parse_noting(text.as_bytes(), &noting),
                None => statectl::state::parse(text.as_bytes()),
            };
            // Only what statectl reads as a state (a legacy format or a broken file is not).
            let Ok(state) = parsed else {
                continue;
            };
            if state.version != 4 {
                continue;
            }
            let handed = statectl::state::query::document(&state, &path, true).unwrap();
            let select = |document: &Document<'_>| {
                path.select(document, Limits::for_document(text.len()))
                    .and_then(|mut selection| selection.to_json(false))
                    .unwrap()
            };
            assert_eq!(
                select(&handed),
                select(&walked),
                "{} {}",
                display(file),
                path.as_str()
            );
            compared += 1;
        }
    }
    assert!(compared > 100, "only {compared} comparisons");
}

fn display(file: &Path) -> String {
    file.strip_prefix(root())
        .unwrap_or(file)
        .display()
        .to_string()
}

/// Random documents and random paths from the part of the grammar jsonpath-rust gets right: the
/// same results, printed the same.
#[test]
fn selects_what_jsonpath_rust_selects_on_generated_documents() {
    let mut rng = fastrand::Rng::with_seed(9535);
    for round in 0..3_000 {
        let value = document(&mut rng, 4);
        let text = if round % 2 == 0 {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let path = path(&mut rng);
        let (ours, theirs) = both(&text, &value, &path);
        assert_eq!(ours, theirs, "round {round}: {path} over {text}");
    }
}

const NAMES: &[&str] = &["a", "b", "id", "type", "x y", "é"];

fn document(rng: &mut fastrand::Rng, depth: usize) -> Value {
    match rng.u8(..if depth == 0 { 6 } else { 9 }) {
        0 => Value::Null,
        1 => json!(rng.bool()),
        2 => json!(rng.i64(-3..4)),
        3 => json!(f64::from(rng.i32(-2..3)) + 0.5),
        4 | 5 => json!(NAMES[rng.usize(..NAMES.len())]),
        6 | 7 => Value::Object(
            (0..rng.usize(..4))
                .map(|_| {
                    (
                        NAMES[rng.usize(..NAMES.len())].to_owned(),
                        document(rng, depth - 1),
                    )
                })
                .collect(),
        ),
        _ => Value::Array(
            (0..rng.usize(..4))
                .map(|_| document(rng, depth - 1))
                .collect(),
        ),
    }
}

fn path(rng: &mut fastrand::Rng) -> String {
    let mut path = String::from("$");
    for _ in 0..rng.usize(1..4) {
        segment(rng, &mut path, true);
    }
    path
}

fn name(rng: &mut fastrand::Rng) -> String {
    let name = NAMES[rng.usize(..NAMES.len())];
    if name.contains(' ') {
        format!("['{name}']")
    } else {
        format!(".{name}")
    }
}

fn segment(rng: &mut fastrand::Rng, path: &mut String, filters: bool) {
    match rng.u8(..if filters { 10 } else { 8 }) {
        0 => path.push_str(&name(rng)),
        1 => path.push_str(".*"),
        2 => {
            let _ = write!(path, "[{}]", rng.i64(-3..3));
        }
        3 => {
            let bound = |rng: &mut fastrand::Rng| {
                if rng.bool() {
                    rng.i64(-3..4).to_string()
                } else {
                    String::new()
                }
            };
            let (start, end) = (bound(rng), bound(rng));
            let step = match rng.u8(..3) {
                0 => String::new(),
                1 => format!(":{}", rng.i64(1..3)),
                _ => format!(":{}", rng.i64(-2..0)),
            };
            let _ = write!(path, "[{start}:{end}{step}]");
        }
        4 => {
            let name = name(rng);
            let _ = write!(path, "..{}", name.trim_start_matches('.'));
        }
        5 => path.push_str("..*"),
        6 => {
            let _ = write!(path, "..[{}]", rng.i64(-2..2));
        }
        7 => {
            let _ = write!(path, "['{}']", NAMES[rng.usize(..NAMES.len())]);
        }
        _ => {
            let _ = write!(path, "[?{}]", filter(rng, 2));
        }
    }
}

fn filter(rng: &mut fastrand::Rng, depth: usize) -> String {
    let operand = |rng: &mut fastrand::Rng| {
        let mut query = String::from("@");
        if rng.bool() {
            query.push_str(&name(rng));
        }
        query
    };
    let literal = |rng: &mut fastrand::Rng| match rng.u8(..5) {
        0 => rng.i64(-3..4).to_string(),
        1 => format!("'{}'", NAMES[rng.usize(..NAMES.len())]),
        2 => "true".to_owned(),
        3 => "null".to_owned(),
        _ => "1.5".to_owned(),
    };
    let choices = if depth == 0 { 5 } else { 7 };
    match rng.u8(..choices) {
        0 => operand(rng),
        1 => format!("!{}", operand(rng)),
        2 => {
            let op = ["==", "!=", "<", "<=", ">", ">="][rng.usize(..6)];
            format!("{} {op} {}", operand(rng), literal(rng))
        }
        3 => format!("length({}) > {}", operand(rng), rng.i64(0..3)),
        // Not `count(...) == 0`: jsonpath-rust reads the count of no nodes as Nothing, not 0.
        4 => format!("count(@.*) > {}", rng.i64(0..3)),
        5 => format!("{} && {}", filter(rng, depth - 1), filter(rng, depth - 1)),
        _ => format!("({} || {})", filter(rng, depth - 1), filter(rng, depth - 1)),
    }
}

/// The fuzz target's invariants (`statectl::fuzzing::jsonpath`) on seeded mutations of expressions
/// and documents: every run parses or is refused, ends within its budget, and prints JSON.
#[test]
fn mutated_paths_and_documents_keep_the_fuzz_invariants() {
    let seeds: &[&str] = &[
        "$..*",
        "$.resources[*].instances[*].attributes.id",
        "$..instances[?@.status=='tainted']",
        "$..[?length(@) > 1 && @[0]]",
        "$..[?match(@, '[a-z]+.*')]",
        "$..*[-1:0:-2]",
        "$[?count(@..*) > 2]",
        "$..['input','value']",
        "$..*..*..*",
        "$..b\n{\"a\": [{\"b\": 1}, {\"b\": {\"b\": [2]}}], \"\\u0062\": \"x\", \"b\": 1e5}",
        "$[?@ == $[0]]\n[[[[1]]], [[[1.0]]], [[[10e-1]]]]",
    ];
    for (index, seed) in seeds.iter().enumerate() {
        statectl::fuzzing::jsonpath(seed.as_bytes());
        for mutated in mutations(seed.as_bytes(), 300, index as u64) {
            statectl::fuzzing::jsonpath(&mutated);
        }
    }
}
