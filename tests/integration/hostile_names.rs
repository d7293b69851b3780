//! A state written to forge output (item 16 of issue 24): ESC, BEL, CR, LF, NUL, a C1 CSI and a
//! right-to-left override, `::error::`, `%0A`, backticks, `|`, `<!--`, `]]>` and `@everyone` in
//! resource types and names, module keys (escaped as HCL, and raw), instance keys, attribute values,
//! a check's failure message, an output's name and the lineage. Every command and every report format
//! is run on it: no control character reaches a terminal or a CI log raw, an address stays on one
//! line, and each format's structure holds (one workflow command a line, one Markdown row a line
//! with its cells, well-formed XML, valid SARIF and GitLab JSON that keep the names exactly).

use std::path::Path;

use serde_json::{Value, json};

use crate::builder::{Output, Test, assert_contains, assert_lacks};
use crate::files::folder_with;

/// The text hidden in every name.
const NASTY: &str = "\u{1b}[31m\u{7}\r\n\u{0}::error::%0A`|<!--]]>\u{202e}\u{9b}@everyone";

/// The same, as HCL escapes (a module key as Terraform writes it).
const NASTY_HCL: &str = r"\u001b[31m\u0007\r\n\u0000::error::%0A`|<!--]]>\u202e\u009b@everyone";

/// The state: a tainted instance and a deposed object of a resource whose type, name, module keys
/// and instance key all hold [`NASTY`]; an RDS instance still creating whose endpoint holds it; a
/// failed check whose message holds it.
fn nasty_state() -> Value {
    // A raw module key cannot hold a line break (it is not an address then); the rest it can.
    let raw_key: String = NASTY.chars().filter(|c| *c != '\n' && *c != '\r').collect();
    json!({
        "version": 4,
        "terraform_version": "1.15.5",
        "serial": 1,
        "lineage": format!("lineage{NASTY}"),
        "outputs": { format!("o{NASTY}"): { "value": NASTY, "type": "string" } },
        "check_results": [{
            "object_kind": "check", "config_addr": "check.c", "status": "fail",
            "objects": [{ "object_addr": "check.c", "status": "fail", "failure_messages": [NASTY] }],
        }],
        "resources": [
            {
                "module": format!("module.m[\"k{NASTY_HCL}\"].module.r[\"{}\"]", raw_key.replace('"', "")),
                "mode": "managed",
                "type": format!("aws_instance{NASTY}"),
                "name": format!("web{NASTY}"),
                "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]",
                "instances": [
                    { "status": "tainted", "schema_version": 0, "index_key": format!("k{NASTY}"),
                      "attributes": { "id": format!("i-1{NASTY}"), "status": NASTY }, "sensitive_attributes": [] },
                    { "index_key": "d", "schema_version": 0, "deposed": "0000abcd",
                      "attributes": { "id": NASTY }, "sensitive_attributes": [] },
                ],
            },
            {
                "mode": "managed", "type": "aws_db_instance", "name": "db",
                "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]",
                "instances": [{ "schema_version": 0,
                    "attributes": { "id": "i-2", "status": "creating", "address": null, "endpoint": NASTY },
                    "sensitive_attributes": [] }],
            },
        ],
    })
}

/// A folder holding the state as `nasty.tfstate`, and a plain state beside it for `diff`.
fn folder() -> tempfile::TempDir {
    folder_with(
        "nasty.tfstate",
        serde_json::to_string_pretty(&nasty_state()).unwrap(),
    )
}

fn run(folder: &Path, args: &[&str]) -> Output {
    let output = Test::new().current_dir(folder).args(args).run();
    for (stream, text) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        assert_no_raw_controls(text, &format!("statectl {} ({stream})", args.join(" ")));
    }
    output
}

/// No control character but the line break, no bidirectional override: nothing restyles a terminal,
/// moves its cursor or reorders what it shows.
#[track_caller]
fn assert_no_raw_controls(text: &str, what: &str) {
    // A CRLF's carriage return, which `show` keeps in a heredoc as Terraform prints it, can forge
    // nothing: the line is written, and the newline follows at once. Every other output escapes it.
    let text = if what.starts_with("statectl show ") {
        text.replace("\r\n", "\n")
    } else {
        text.to_owned()
    };
    if let Some(bad) = text.chars().find(|character| {
        (character.is_control() && *character != '\n')
            || matches!(character, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    }) {
        panic!("{what}: a raw {bad:?} in\n{text}");
    }
}

/// The address of the tainted instance, as the JSON formats keep it.
fn tainted_address(folder: &Path) -> String {
    let output = run(folder, &["list", "nasty.tfstate", "--format", "json"]);
    let document: Value = serde_json::from_str(&output.stdout).unwrap();
    let instances = document["instances"].as_array().unwrap();
    let tainted = instances
        .iter()
        .find(|instance| instance["tainted"] == true)
        .unwrap();
    // The JSON keeps the names as they are: the type, the name, the key.
    assert_eq!(tainted["type"], format!("aws_instance{NASTY}"));
    assert_eq!(tainted["name"], format!("web{NASTY}"));
    assert_eq!(tainted["index_key"], format!("k{NASTY}"));
    tainted["address"].as_str().unwrap().to_owned()
}

#[test]
fn list_show_summary_query_and_diff_escape_every_name() {
    let folder = folder();
    let folder = folder.path();
    // The JSON keeps every name as it is.
    tainted_address(folder);
    // One line per instance, each one whole.
    let list = run(folder, &["list", "nasty.tfstate"]).code(0);
    assert_eq!(list.stdout.lines().count(), 3, "{}", list.stdout);
    assert_contains(
        &list.stdout,
        "aws_instance\\u{1b}[31m\\u{7}\\r\\n\\u{0}::error::",
    );
    // Terraform's own quoting of an odd key, byte for byte.
    assert_contains(
        &list.stdout,
        r#"module.m["k\u001b[31m\u0007\r\n\u0000::error::%0A`|<!--]]>\u202e\u009b@everyone"]"#,
    );
    run(folder, &["show", "aws_db_instance.db", "nasty.tfstate"]).code(0);
    run(folder, &["summary", "nasty.tfstate"]).code(0);
    run(folder, &["summary", "nasty.tfstate", "--format", "json"]).code(0);
    run(folder, &["query", "$..status", "nasty.tfstate"]).code(0);
    std::fs::write(
        folder.join("plain.tfstate"),
        r#"{"version": 4, "terraform_version": "1.15.5", "serial": 1, "lineage": "x", "outputs": {}, "resources": []}"#,
    )
    .unwrap();
    for format in ["text", "json", "markdown"] {
        run(
            folder,
            &["diff", "plain.tfstate", "nasty.tfstate", "--format", format],
        )
        .code(1);
    }
    run(
        folder,
        &["diff", "plain.tfstate", "nasty.tfstate", "--stat"],
    )
    .code(1);
}

#[test]
fn every_report_format_of_scan_and_audit_holds_its_structure() {
    let folder = folder();
    let folder = folder.path();
    let address = tainted_address(folder);
    // The resource's address (the audit names its deposed object, scan its tainted instance too).
    let resource = address.rsplit_once("[\"k").unwrap().0.to_owned();
    for command in ["scan", "audit"] {
        let code = if command == "scan" { 1 } else { 3 };
        let format =
            |format: &str| run(folder, &[command, "nasty.tfstate", "--format", format]).code(code);

        // The table: every finding's address on one line, hints on stderr one line each.
        let table = format("table");
        assert!(
            table
                .stdout
                .lines()
                .any(|line| line.contains("aws_instance\\u{1b}[31m")),
            "{}",
            table.stdout
        );
        assert!(
            table.stderr.lines().all(|line| line.starts_with("hint: ")),
            "{}",
            table.stderr
        );

        // GitHub: every line one workflow command; none forged inside a name.
        let github = format("github");
        for line in github.stdout.lines() {
            assert!(
                line.starts_with("::warning file=nasty.tfstate")
                    || line.starts_with("::error file=nasty.tfstate")
                    || line.starts_with("::notice file=nasty.tfstate"),
                "{line}"
            );
            let (_, message) = line.split_once("::").unwrap().1.split_once("::").unwrap();
            assert!(!message.contains('\r'), "{line}");
        }

        // Markdown: each row one line with its four cells (pipes in names escaped).
        let markdown = format("markdown");
        for line in markdown.stdout.lines().filter(|line| line.starts_with('|')) {
            let cells = line.replace("\\|", "").matches('|').count();
            assert_eq!(cells, 5, "{line}");
        }
        assert_lacks(&markdown.stdout, " <!--");
        assert_lacks(&markdown.stdout, " @everyone");

        // JUnit: well-formed XML whose test names are the escaped addresses.
        let junit = format("junit");
        let document = roxmltree::Document::parse(&junit.stdout)
            .unwrap_or_else(|error| panic!("{error}\n{}", junit.stdout));
        assert!(
            document
                .descendants()
                .filter(|node| node.has_tag_name("testcase"))
                .all(|case| !case.attribute("name").unwrap().contains('\n')),
            "{}",
            junit.stdout
        );

        // SARIF and GitLab: valid, the address kept whole as data.
        let sarif: Value = serde_json::from_str(&format("sarif").stdout).unwrap();
        assert_eq!(crate::sarif_schema::validate_sarif(&sarif), Ok(()));
        let names: Vec<&str> = sarif["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|result| {
                result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
                    .as_str()
                    .unwrap()
            })
            .collect();
        assert!(
            names.iter().any(|name| name.starts_with(&resource)),
            "{names:?}"
        );
        if command == "scan" {
            assert!(names.contains(&address.as_str()), "{names:?}");
        }
        let gitlab: Value = serde_json::from_str(&format("gitlab").stdout).unwrap();
        assert_eq!(crate::ci_gitlab::validate(&gitlab), Ok(()));
        assert!(!gitlab.as_array().unwrap().is_empty());

        // JSON: the findings keep the address exactly.
        let json: Value = serde_json::from_str(&format("json").stdout).unwrap();
        let findings = if command == "scan" {
            json["states"][0]["findings"].clone()
        } else {
            json["findings"].clone()
        };
        assert!(
            findings
                .as_array()
                .unwrap()
                .iter()
                .any(|finding| finding["address"].as_str().unwrap().starts_with(&resource)),
            "{json:#}"
        );
    }
}
