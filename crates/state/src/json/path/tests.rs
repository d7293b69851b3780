//! The engine against RFC 9535: its examples (written out here), the JSONPath Compliance Test Suite
//! when it is on disk, jsonpath-rust's results on generated documents and paths, and hostile inputs
//! that must end in an error within the budget.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::json::path::{Document, Exceeded, JsonPath, Limits};

/// The compact result of `path` over `document`, read back as JSON.
fn select(document: &Value, path: &str) -> Value {
    let text = serde_json::to_string_pretty(document).unwrap();
    select_text(&text, path)
}

fn select_text(text: &str, path: &str) -> Value {
    let document = Document::parse(text).unwrap();
    let path = JsonPath::parse(path).unwrap_or_else(|error| panic!("{path}: {error}"));
    let mut selection = path
        .select(&document, Limits::for_document(document.len()))
        .unwrap();
    serde_json::from_str(&selection.to_json(false).unwrap()).unwrap()
}

/// How many nodes `path` selects in `text` (for results too deep to read back with serde_json).
fn count(text: &str, path: &str) -> usize {
    let document = Document::parse(text).unwrap();
    JsonPath::parse(path)
        .unwrap()
        .select(&document, Limits::for_document(document.len()))
        .unwrap()
        .len()
}

fn bookstore() -> Value {
    json!({"store": {
        "book": [
            {"category": "reference", "author": "Nigel Rees", "title": "Sayings of the Century", "price": 8.95},
            {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword of Honour", "price": 12.99},
            {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "isbn": "0-553-21311-3", "price": 8.99},
            {"category": "fiction", "author": "J. R. R. Tolkien", "title": "The Lord of the Rings", "isbn": "0-395-19395-8", "price": 22.99}
        ],
        "bicycle": {"color": "red", "price": 399}
    }})
}

#[test]
fn rfc_9535_overview_examples() {
    let store = bookstore();
    let authors = json!([
        "Nigel Rees",
        "Evelyn Waugh",
        "Herman Melville",
        "J. R. R. Tolkien"
    ]);
    assert_eq!(select(&store, "$.store.book[*].author"), authors);
    assert_eq!(select(&store, "$..author"), authors);
    assert_eq!(select(&store, "$.store.*").as_array().unwrap().len(), 2);
    assert_eq!(
        select(&store, "$.store..price"),
        // Pre-order: the books come first in this document.
        json!([8.95, 12.99, 8.99, 22.99, 399])
    );
    assert_eq!(select(&store, "$..book[2].title"), json!(["Moby Dick"]));
    assert_eq!(
        select(&store, "$..book[-1].title"),
        json!(["The Lord of the Rings"])
    );
    assert_eq!(select(&store, "$..book[0,1].price"), json!([8.95, 12.99]));
    assert_eq!(select(&store, "$..book[:2].price"), json!([8.95, 12.99]));
    assert_eq!(
        select(&store, "$..book[?@.isbn].title"),
        json!(["Moby Dick", "The Lord of the Rings"])
    );
    assert_eq!(
        select(&store, "$..book[?@.price<10].title"),
        json!(["Sayings of the Century", "Moby Dick"])
    );
    assert_eq!(select(&store, "$..*").as_array().unwrap().len(), 27);
}

#[test]
fn rfc_9535_filter_examples() {
    let document = json!({
        "a": [3, 5, 1, 2, 4, 6, {"b": "j"}, {"b": "k"}, {"b": {}}, {"b": "kilo"}],
        "o": {"p": 1, "q": 2, "r": 3, "s": 5, "t": {"u": 6}},
        "e": "f"
    });
    let cases = [
        ("$.a[?@.b == 'kilo']", json!([{"b": "kilo"}])),
        ("$.a[?(@.b == 'kilo')]", json!([{"b": "kilo"}])),
        ("$.a[?@>3.5]", json!([5, 4, 6])),
        (
            "$.a[?@.b]",
            json!([{"b": "j"}, {"b": "k"}, {"b": {}}, {"b": "kilo"}]),
        ),
        ("$[?@.*]", json!([document["a"], document["o"]])),
        ("$[?@[?@.b]]", json!([document["a"]])),
        ("$.o[?@<3, ?@<3]", json!([1, 2, 1, 2])),
        ("$.a[?@<2 || @.b == \"k\"]", json!([1, {"b": "k"}])),
        (
            "$.a[?match(@.b, \"[jk]\")]",
            json!([{"b": "j"}, {"b": "k"}]),
        ),
        (
            "$.a[?search(@.b, \"[jk]\")]",
            json!([{"b": "j"}, {"b": "k"}, {"b": "kilo"}]),
        ),
        ("$.o[?@>1 && @<4]", json!([2, 3])),
        ("$.o[?@.u || @.x]", json!([{"u": 6}])),
        ("$.a[?@.b == $.x]", json!([3, 5, 1, 2, 4, 6])),
        ("$.a[?@ == @]", document["a"].clone()),
        ("$.a[?!@.b]", json!([3, 5, 1, 2, 4, 6])),
        ("$.a[?length(@.b) == 4]", json!([{"b": "kilo"}])),
        (
            "$.a[?count(@.*) == 1]",
            json!([{"b": "j"}, {"b": "k"}, {"b": {}}, {"b": "kilo"}]),
        ),
        ("$[?value(@.u) == 6]", json!([])),
        ("$.o[?value(@.u) == 6]", json!([{"u": 6}])),
    ];
    for (path, expected) in cases {
        assert_eq!(select(&document, path), expected, "{path}");
    }
}

#[test]
fn rfc_9535_descendant_and_null_examples() {
    let document = json!({"o": {"j": 1, "k": 2}, "a": [5, 3, [{"j": 4}, {"k": 6}]]});
    let cases = [
        ("$..j", json!([1, 4])),
        ("$..[0]", json!([5, {"j": 4}])),
        (
            "$..*",
            json!([{"j": 1, "k": 2}, [5, 3, [{"j": 4}, {"k": 6}]], 1, 2, 5, 3, [{"j": 4}, {"k": 6}], {"j": 4}, {"k": 6}, 4, 6]),
        ),
        ("$..o", json!([{"j": 1, "k": 2}])),
        ("$.o..[*, *]", json!([1, 2, 1, 2])),
        ("$.a..[0, 1]", json!([5, 3, {"j": 4}, {"k": 6}])),
        ("$..['j','k']", json!([1, 2, 4, 6])),
    ];
    for (path, expected) in cases {
        assert_eq!(select(&document, path), expected, "{path}");
    }
    let nulls = json!({"a": null, "b": [null], "c": [{}], "null": 1});
    assert_eq!(select(&nulls, "$.a"), json!([null]));
    assert_eq!(select(&nulls, "$.a[0]"), json!([]));
    assert_eq!(select(&nulls, "$.a.d"), json!([]));
    assert_eq!(select(&nulls, "$.b[0]"), json!([null]));
    assert_eq!(select(&nulls, "$.b[*]"), json!([null]));
    assert_eq!(select(&nulls, "$.b[?@]"), json!([null]));
    assert_eq!(select(&nulls, "$.b[?@==null]"), json!([null]));
    assert_eq!(select(&nulls, "$.c[?@.d==null]"), json!([]));
    assert_eq!(select(&nulls, "$.null"), json!([1]));
}

#[test]
fn rfc_9535_comparison_table() {
    let document = json!({"obj": {"x": "y"}, "arr": [2, 3]});
    let cases = [
        ("$.absent1 == $.absent2", true),
        ("$.absent1 <= $.absent2", true),
        ("$.absent == 'g'", false),
        ("$.absent1 != $.absent2", false),
        ("$.absent != 'g'", true),
        ("1 <= 2", true),
        ("1 > 2", false),
        ("13 == '13'", false),
        ("'a' <= 'b'", true),
        ("'a' > 'b'", false),
        ("$.obj == $.arr", false),
        ("$.obj != $.arr", true),
        ("$.obj == $.obj", true),
        ("$.obj != $.obj", false),
        ("$.arr == $.arr", true),
        ("$.arr != $.arr", false),
        ("$.obj == 17", false),
        ("$.obj != 17", true),
        ("$.obj <= $.arr", false),
        ("$.obj < $.arr", false),
        ("$.obj <= $.obj", true),
        ("$.arr <= $.arr", true),
        ("1 <= $.arr", false),
        ("1 >= $.arr", false),
        ("1 > $.arr", false),
        ("1 < $.arr", false),
        ("true <= true", true),
        ("true > true", false),
        ("1 == 1.0", true),
        ("1.5e1 == 15", true),
        ("-0 == 0", true),
        ("'é' > 'e'", true),
    ];
    for (comparison, holds) in cases {
        let found = select(&document, &format!("$[?{comparison}]"));
        assert_eq!(!found.as_array().unwrap().is_empty(), holds, "{comparison}");
    }
}

#[test]
fn numbers_compare_exactly_beyond_f64() {
    let text =
        r#"{"a": [9007199254740993, 9007199254740992, 123456789012345678901234567890, 1E2, 0.1]}"#;
    assert_eq!(
        select_text(text, "$.a[?@ > 9007199254740991]").to_string(),
        "[9007199254740993,9007199254740992,123456789012345678901234567890]"
    );
    assert_eq!(select_text(text, "$.a[?@ == 100]").to_string(), "[1e+2]");
    assert_eq!(select_text(text, "$.a[?@ == 0.1]").to_string(), "[0.1]");
}

#[test]
fn refuses_ill_typed_and_non_standard_expressions() {
    for path in [
        "$[?length(@.*) < 3]",
        "$[?length(@['a', 'b']) < 3]",
        "$[?count(1) == 1]",
        "$[?count(@..*)]",
        "$[?length(@.a)]",
        "$[?value(@.a)]",
        "$[?match(@.a, 'x') == true]",
        "$[?in(@.a, ['x'])]",
        "$[?value(1) == 1]",
        "$.[",
        "$[?",
        " $",
        "$ ",
        "@.a",
    ] {
        assert!(JsonPath::parse(path).is_err(), "{path} parsed");
    }
    let error = JsonPath::parse("$.[").unwrap_err();
    assert_eq!(error.column, Some(3));
    assert!(
        JsonPath::parse(&format!("$.{}", "a".repeat(70_000)))
            .unwrap_err()
            .reason
            .contains("at most")
    );
    let nested = format!("$[?{}@{}]", "(".repeat(200), ")".repeat(200));
    assert!(JsonPath::parse(&nested).is_err());
    for path in [
        "$[?length(@) < 3]",
        "$[?count(@.*) == 1]",
        "$[?match(@.timezone, 'Europe/.*')]",
        "$[?value(@..color) == \"red\"]",
        "$[?length(value(@.a)) > 1]",
    ] {
        assert!(JsonPath::parse(path).is_ok(), "{path} refused");
    }
}

#[test]
fn repeated_names_keep_the_first_place_and_the_last_value() {
    let text = r#"{"k": 1, "z": 0, "k": 2, "\u006b": 3}"#;
    assert_eq!(select_text(text, "$.k").to_string(), "[3]");
    assert_eq!(select_text(text, "$.*").to_string(), "[3,0]");
    assert_eq!(select_text(text, "$").to_string(), r#"[{"k":3,"z":0}]"#);
    assert_eq!(select_text(text, "$[?length(@) == 2]").to_string(), "[]");
    // Many members (found by hashing): names alike in length and in their first and last eight
    // bytes, one of them repeated.
    let names: Vec<String> = (0..20)
        .map(|index| format!("prefix_a{}_suffix_z", char::from(b'a' + index)))
        .collect();
    let mut members: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(index, name)| format!("\"{name}\": {index}"))
        .collect();
    members.push(format!("\"{}\": 99", names[7]));
    let many = format!("{{{}}}", members.join(", "));
    let mut expected: Vec<usize> = (0..20).collect();
    expected[7] = 99;
    assert_eq!(select_text(&many, "$.*"), json!(expected));
    assert_eq!(select_text(&many, &format!("$.{}", names[7])), json!([99]));
}

#[test]
fn prints_as_serde_json_pretty_prints() {
    let text = r#"{"a": [1E5, -0, 1.50, {"b": "\u003c\/\u00e9\ud83d\ude00\u0001\ud800"}, [], {}], "c": true}"#;
    let document = Document::parse(text).unwrap();
    let mut selection = JsonPath::parse("$.*")
        .unwrap()
        .select(&document, Limits::for_document(text.len()))
        .unwrap();
    let value: Value = serde_json::from_str(&text.replace(r"\ud800", "\u{fffd}")).unwrap();
    let expected = serde_json::to_string_pretty(&json!([value["a"], value["c"]])).unwrap();
    assert_eq!(selection.to_json(true).unwrap(), expected);
    assert_eq!(
        selection.to_json(false).unwrap(),
        serde_json::to_string(&json!([value["a"], value["c"]])).unwrap()
    );
    let empty = Document::parse("[]").unwrap();
    let mut nothing = JsonPath::parse("$[0]")
        .unwrap()
        .select(&empty, Limits::for_document(2))
        .unwrap();
    assert_eq!(nothing.to_json(true).unwrap(), "[]");
}

#[test]
fn masked_values_read_and_print_as_the_mask() {
    let text = r#"{"secret": {"deep": [1, 2]}, "open": "x", "list": ["s", "t"]}"#;
    let secret = text.find("{\"deep").unwrap();
    let second = text.find("\"t\"").unwrap();
    let document = Document::parse(text)
        .unwrap()
        .with_masks(vec![secret, second], "(sensitive value)");
    let run = |path: &str| {
        let mut selection = JsonPath::parse(path)
            .unwrap()
            .select(&document, Limits::for_document(text.len()))
            .unwrap();
        selection.to_json(false).unwrap()
    };
    assert_eq!(run("$.secret"), r#"["(sensitive value)"]"#);
    assert_eq!(run("$.secret.deep"), "[]");
    assert_eq!(run("$..deep"), "[]");
    assert_eq!(run("$..[1]"), r#"["(sensitive value)"]"#);
    assert_eq!(
        run("$[?@ == '(sensitive value)']"),
        r#"["(sensitive value)"]"#
    );
    assert_eq!(run("$[?length(@) == 17]"), r#"["(sensitive value)"]"#);
    assert_eq!(
        run("$"),
        r#"[{"secret":"(sensitive value)","open":"x","list":["s","(sensitive value)"]}]"#
    );
}

/// A `[[[...]]]` nesting `depth` deep around `inner`.
fn nested(depth: usize, inner: &str) -> String {
    format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn hostile_paths_run_out_of_budget_quickly() {
    // The issue's case: a 100-deep array in a 529-byte state, four descendant wildcards.
    let text = nested(100, "1");
    let document = Document::parse(&text).unwrap();
    let limits = Limits::for_document(text.len());
    for path in ["$..*..*..*..*", "$..*..*..*..*..*", "$..[?@..*..*..*]"] {
        let error = JsonPath::parse(path)
            .unwrap()
            .select(&document, limits)
            .unwrap_err();
        assert!(
            matches!(error, Exceeded::Visits(_) | Exceeded::Kept(_)),
            "{path}: {error}"
        );
    }
    // What a careful user asks of the same document still runs.
    assert_eq!(select_text(&text, "$..*").as_array().unwrap().len(), 100);
    // A deep document printed pretty would be quadratic: it is refused, and compact prints.
    let deep = nested(10_000, "1");
    let document = Document::parse(&deep).unwrap();
    let mut all = JsonPath::parse("$")
        .unwrap()
        .select(&document, Limits::for_document(deep.len()))
        .unwrap();
    assert!(matches!(all.to_json(true), Err(Exceeded::Output(_))));
    assert_eq!(all.to_json(false).unwrap(), format!("[{deep}]"));
}

/// A descendant segment of names searches a node's text before walking it: descending from each
/// of a thousand nested arrays around a megabyte of text searches that megabyte each time, and
/// the searching is counted against the budget like the walk it saves.
#[test]
fn searching_deep_text_again_and_again_runs_out_of_budget() {
    let text = nested(1_000, &format!("\"{}\"", "x".repeat(1 << 20)));
    let document = Document::parse(&text).unwrap();
    let error = JsonPath::parse("$..*..zzz")
        .unwrap()
        .select(&document, Limits::for_document(text.len()))
        .unwrap_err();
    assert!(matches!(error, Exceeded::Visits(_)), "{error}");
    // Once is within it: nothing there.
    assert_eq!(count(&text, "$..zzz"), 0);
}

#[test]
fn depth_costs_no_stack() {
    // As deep as the JSON reader accepts: 10,000 levels with the object.
    let deep = nested(9_999, r#"{"leaf": "x"}"#);
    assert_eq!(select_text(&deep, "$..leaf"), json!(["x"]));
    assert_eq!(select_text(&deep, "$..[?@.leaf]"), json!([{"leaf": "x"}]));
    assert_eq!(count(&deep, "$[?@ == @]"), 1);
    let twice = format!("[{}, {}]", nested(9_998, "{}"), nested(9_998, "{}"));
    assert_eq!(count(&twice, "$[?@ == $[0]]"), 2);
    assert_eq!(count(&deep, "$..*"), 10_000);
}

/// The JSONPath Compliance Test Suite's `cts.json`: the copy in `testdata/jsonpath-compliance`, or
/// another named by `STATECTL_JSONPATH_CTS` (when set and not empty).
fn compliance_suite() -> Value {
    let path = std::env::var_os("STATECTL_JSONPATH_CTS")
        .filter(|path| !path.is_empty())
        .map_or_else(
            || {
                PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("../../testdata/jsonpath-compliance/cts.json")
            },
            PathBuf::from,
        );
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn passes_the_compliance_test_suite() {
    let suite = compliance_suite();
    let mut failures = Vec::new();
    let tests = suite["tests"].as_array().unwrap();
    for test in tests {
        let name = test["name"].as_str().unwrap();
        let selector = test["selector"].as_str().unwrap();
        let parsed = JsonPath::parse(selector);
        if test.get("invalid_selector").is_some() {
            if parsed.is_ok() {
                failures.push(format!("{name}: accepts the invalid `{selector}`"));
            }
            continue;
        }
        let Ok(path) = parsed else {
            failures.push(format!("{name}: refuses the valid `{selector}`"));
            continue;
        };
        let text = serde_json::to_string(&test["document"]).unwrap();
        let document = Document::parse(&text).unwrap();
        let found: Value = path
            .select(&document, Limits::for_document(text.len()))
            .map_or_else(
                |error| panic!("{name}: {error}"),
                |mut selection| serde_json::from_str(&selection.to_json(false).unwrap()).unwrap(),
            );
        let expected: Vec<&Value> = match test.get("result") {
            Some(result) => vec![result],
            None => test["results"].as_array().unwrap().iter().collect(),
        };
        if !expected.contains(&&found) {
            failures.push(format!("{name}: `{selector}` gave {found}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        tests.len(),
        failures.join("\n")
    );
}

#[test]
fn the_compliance_suite_cut_into_parts_selects_what_one_thread_selects() {
    let suite = compliance_suite();
    for test in suite["tests"].as_array().unwrap() {
        let Ok(path) = JsonPath::parse(test["selector"].as_str().unwrap()) else {
            continue;
        };
        let text = serde_json::to_string(&test["document"]).unwrap();
        let document = Document::parse(&text).unwrap();
        let run = |parts| {
            crate::parts::forced(parts, || {
                path.select(&document, Limits::for_document(text.len()))
                    .and_then(|mut selection| selection.to_json(false))
            })
        };
        let whole = run(1);
        for parts in [2, 3, 7] {
            assert_eq!(run(parts), whole, "{}: in {parts} parts", test["name"]);
        }
    }
}

#[test]
fn small_results_print_whole_and_large_ones_in_pieces() {
    let print = |text: &str, path: &str| {
        let document = Document::parse(text).unwrap();
        let mut pieces = Vec::new();
        JsonPath::parse(path)
            .unwrap()
            .select(&document, Limits::for_document(text.len()))
            .unwrap()
            .print(false, |piece| {
                pieces.push(piece.len());
                Ok::<_, std::convert::Infallible>(())
            })
            .map_err(|error| error.to_string())
            .unwrap();
        pieces
    };
    let small = serde_json::to_string(&bookstore()).unwrap();
    assert_eq!(print(&small, "$..author"), [66]);
    // Past what is held in memory (8 MB): measured, then written in pieces of about 64 KB.
    let large = serde_json::to_string(&vec!["a value of thirty bytes, or so"; 300_000]).unwrap();
    let pieces = print(&large, "$.*");
    assert_eq!(pieces.iter().sum::<usize>(), large.len());
    assert!(
        pieces.len() > 100 && pieces.iter().all(|&piece| piece < 70_000),
        "{}",
        pieces.len()
    );
}

#[test]
fn names_after_a_parent_are_found_in_segments_and_filters() {
    let names = |path: &str| JsonPath::parse(path).unwrap().names_after("attributes");
    assert_eq!(names("$.resources[*].instances[*].attributes.id"), ["id"]);
    assert_eq!(names("$..attributes['id', 'arn', 'id', 0]"), ["id", "arn"]);
    assert_eq!(names("$..['attributes', 'x'].tags.Name"), ["tags"]);
    assert_eq!(names("$.attributes.attributes.id"), ["attributes", "id"]);
    // A descendant segment after `attributes` reads every member, not chosen ones.
    assert!(names("$..attributes..id").is_empty());
    assert!(names("$..attributes[*]").is_empty());
    assert!(names("$.resources[*].instances[*].id").is_empty());
    assert_eq!(
        names(
            "$.resources[?@.instances[0].attributes.name == 'x' && !(length(@.instances[0].attributes.tags) > 1 || search(value(@.attributes.zone), 'a'))].instances[*].attributes.id"
        ),
        ["id", "name", "tags", "zone"]
    );
    assert_eq!(
        names("$[?count(@.attributes.a[?@.attributes.b]) > 0]"),
        ["a", "b"]
    );
}

#[test]
fn a_name_selected_anywhere_is_found_in_segments_and_filters() {
    let selects = |path: &str| JsonPath::parse(path).unwrap().selects_name("status");
    assert!(selects("$..instances[?@.status=='tainted']"));
    assert!(selects("$['status']"));
    assert!(selects("$..status"));
    assert!(selects("$[?count(@.a[?@.b[?@['x', 'status']]]) > 0]"));
    assert!(selects(
        "$[?length(value(@.status)) > 1 || search(@.x, 'y')]"
    ));
    assert!(!selects("$..*"));
    assert!(!selects("$.resources[?@.type == 'status'].name"));
    assert!(!selects("$.Status"));
}
