//! The invariants that fuzzers and property tests check, one entry point per engine that reads
//! untrusted input: each takes arbitrary bytes, runs the engine, and panics only when an invariant
//! breaks (a panic inside the engine is a finding too). `fuzz/` drives them with AFL++; the property
//! tests in `tests/integration/properties.rs` drive them from `cargo test` with mutated test data.
//!
//! Not part of statectl's interface: hidden from the docs, and free to change with the engines.

use std::fmt;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use statectl_state::duration::{Deadline, humanize, parse_duration};

use crate::json::path::{Document, JsonPath, Limits};
use crate::reconcile::http::HttpResponse;
use crate::reconcile::plugin::value::{Type, decode, encode};
use crate::reconcile::poll::{
    Observation, Operation, PollPolicy, Poller, StatusClass, observe_response, retry_after,
};
use crate::reconcile::profile::{Endpoint, Profiles};
use crate::state::address::{ObjectAddr, Target};
use crate::state::mutate::{Mutation, plan, render};
use crate::state::parse;
use crate::state::store::lock_info::{LockInfo, MAX_FIELD_SHOWN, MAX_LOCK_INFO};
use crate::state::write::rerender_all;

/// The state parser and writer. A state that parses:
/// - re-rendered whole (every instance rewritten in its writer's layout) parses again, holds the same
///   objects in the same order, and re-rendering that is a fixpoint (so a writer-exact input, which is
///   its own re-render, comes back byte for byte);
/// - tainted or removed at its first object, renders into a state that parses, with `serial + 1`, the
///   same lineage, and the untouched objects' bytes unchanged.
pub fn state(data: &[u8]) {
    let Ok(state) = parse(data) else { return };
    let objects = object_names(&state);
    let once = rerender_all(&state);
    let again = parse(once.as_bytes())
        .unwrap_or_else(|error| panic!("a re-rendered state does not parse: {error}"));
    assert_eq!(
        objects,
        object_names(&again),
        "re-rendering changed the objects"
    );
    assert_eq!(rerender_all(&again), once, "re-rendering is not a fixpoint");

    let Some((resource, first)) = state.instances().next() else {
        return;
    };
    let address = first.address(resource);
    for mutation in [
        Mutation::Taint(address.clone()),
        Mutation::Forget(Target::Instance(address.clone())),
    ] {
        let Ok(planned) = plan(&state, &[mutation]) else {
            continue;
        };
        if planned.is_empty() {
            continue;
        }
        let text = render(&state, &planned);
        let after = parse(text.as_bytes())
            .unwrap_or_else(|error| panic!("a mutated state does not parse: {error}"));
        assert_eq!(after.serial, state.serial + 1, "serial");
        assert_eq!(after.lineage, state.lineage, "lineage");
        // Every object the mutation did not touch keeps its bytes.
        let touched = |candidate: &crate::state::Instance<'_>,
                       owner: &crate::state::Resource<'_>| {
            candidate.address(owner) == address
        };
        let untouched_before: Vec<&str> = state
            .instances()
            .filter(|(owner, candidate)| !touched(candidate, owner))
            .map(|(_, candidate)| candidate.span.of(state.source))
            .collect();
        let untouched_after: Vec<&str> = after
            .instances()
            .filter(|(owner, candidate)| !touched(candidate, owner))
            .map(|(_, candidate)| candidate.span.of(after.source))
            .collect();
        assert_eq!(
            untouched_before, untouched_after,
            "untouched objects changed"
        );
    }
}

/// Every object's address and deposed key, in the state's order.
fn object_names(state: &crate::state::State<'_>) -> Vec<String> {
    state
        .instances()
        .map(|(resource, instance)| {
            format!("{} {:?}", instance.address(resource), instance.deposed)
        })
        .collect()
}

/// The address parser: whatever parses prints as text that parses back to the same address, and
/// printing is stable.
pub fn address(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    round_trip::<ObjectAddr>(text);
    round_trip::<Target>(text);
}

/// If `text` parses as a `T`, its printed form parses back to the same value and prints the same.
fn round_trip<T>(text: &str)
where
    T: std::str::FromStr + fmt::Display + PartialEq + fmt::Debug,
    T::Err: fmt::Display,
{
    if let Ok(parsed) = text.parse::<T>() {
        let printed = parsed.to_string();
        let again: T = printed
            .parse()
            .unwrap_or_else(|error| panic!("`{printed}` does not parse back: {error}"));
        assert_eq!(again, parsed, "`{text}` -> `{printed}`");
        assert_eq!(again.to_string(), printed);
    }
}

/// The profile and template compiler: any text is compiled or refused with an error, and a refused
/// file changes nothing.
pub fn profiles(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut profiles = Profiles::builtin();
    let before = profiles.iter().count();
    if profiles.add_str(text, "fuzz.toml").is_err() {
        assert_eq!(
            profiles.iter().count(),
            before,
            "a refused file changed the profiles"
        );
    }
}

/// The msgpack decoder of plugin values: anything decodes or is refused, for a few schema types; a
/// decoded value encodes, and decodes back to itself.
pub fn msgpack(data: &[u8]) {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let types = [
        Type::Dynamic,
        Type::Object(
            [
                ("id".to_owned(), Type::String),
                ("count".to_owned(), Type::Number),
                ("tags".to_owned(), Type::Map(Box::new(Type::String))),
                ("items".to_owned(), Type::List(Box::new(Type::Dynamic))),
                ("flags".to_owned(), Type::Set(Box::new(Type::Bool))),
            ]
            .into_iter()
            .collect(),
        ),
        Type::Tuple(vec![Type::Number, Type::String]),
    ];
    let ty = &types[usize::from(selector) % types.len()];
    let Ok(value) = decode(bytes, ty) else { return };
    let encoded = encode(&value, ty)
        .unwrap_or_else(|error| panic!("a decoded value does not encode: {error}: {value}"));
    let again = decode(&encoded, ty)
        .unwrap_or_else(|error| panic!("an encoded value does not decode: {error}: {value}"));
    // cty writes a negative zero as the integer 0 (it is an integer), so the sign may go; nothing
    // else may change (found by the fuzzer: `-0` came back `0`, as Terraform's own encoder does).
    assert_eq!(
        without_negative_zero(again),
        without_negative_zero(value),
        "msgpack round trip"
    );
}

fn without_negative_zero(value: Value) -> Value {
    match value {
        Value::Number(number) if number.as_f64() == Some(0.0) => Value::from(0),
        Value::Array(items) => Value::Array(items.into_iter().map(without_negative_zero).collect()),
        Value::Object(members) => Value::Object(
            members
                .into_iter()
                .map(|(key, member)| (key, without_negative_zero(member)))
                .collect(),
        ),
        other => other,
    }
}

/// A provider's HTTP answer, as the refresh engine reads it with the built-in OCI profile: a status,
/// headers and a body taken from the input. Every answer becomes an observation; the pacing read from
/// `Retry-After` is finite; reading the body never panics.
pub fn http_answer(data: &[u8]) {
    let [high, low, rest @ ..] = data else { return };
    let status = 100 + (u16::from(*high) << 8 | u16::from(*low)) % 500;
    let text = String::from_utf8_lossy(rest);
    let (head, body) = text.split_once("\n\n").unwrap_or(("", &text));
    let headers: Vec<(String, String)> = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let response = HttpResponse {
        status,
        headers,
        body: body.as_bytes().to_vec(),
    };
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let _ = retry_after(&response.headers, now);
    let profiles = Profiles::builtin();
    let profile = profiles
        .for_type("oci_core_instance")
        .expect("the built-in OCI profile");
    let request = profile
        .request(&profile.status.request)
        .expect("the status request");
    let attributes: Value = serde_json::json!({
        "id": "ocid1.instance.oc1.phx.fuzz",
        "compartment_id": "ocid1.compartment.oc1..fuzz",
        "availability_domain": "AD-1",
        "state": "PROVISIONING",
    });
    let endpoint = Endpoint::Fixed("https://iaas.example".parse().expect("a URL"));
    let env = |_: &str| None;
    let mut context = profile.context(&attributes, &endpoint, &env);
    let observation = observe_response(&response, now, |answer| {
        match context.record(request, &answer.body) {
            Err(problem) => Observation::Error(problem.to_string()),
            Ok(()) => context.status().map_or_else(
                || Observation::Error("no status".to_owned()),
                |status| Observation::status(status.value.clone(), StatusClass::Pending),
            ),
        }
    });
    let _ = observation.describe();
    let _ = context.patch();
}

/// A small state the JSONPath target queries when its input carries no JSON document of its own:
/// sensitive attributes (one behind a dynamic value's wrapper), a sensitive output, nesting.
const QUERIED_STATE: &str = r#"{"version": 4, "terraform_version": "1.15.5", "serial": 3, "lineage": "l",
"outputs": {"secret": {"value": {"k": [1, "s"]}, "type": "string", "sensitive": true}, "open": {"value": "o", "type": "string"}},
"resources": [{"mode": "managed", "type": "terraform_data", "name": "a", "provider": "provider[\"terraform.io/builtin/terraform\"]",
"instances": [{"index_key": 0, "status": "tainted", "schema_version": 0, "attributes": {"id": "x", "input": {"value": {"password": "p", "user": "u"}, "type": ["object", {"password": "string", "user": "string"}]}, "list": [[1, [2, [3]]], {"a": {"b": null}}]},
"sensitive_attributes": [[{"type": "get_attr", "value": "input"}, {"type": "get_attr", "value": "password"}], [{"type": "get_attr", "value": "list"}, {"type": "index", "value": {"value": 0, "type": "number"}}]]}]}]}"#;

/// The JSONPath engine: the input is an expression, a newline, then a JSON document (the small state
/// above when what follows is not JSON). An expression parses or is refused; one that parses runs
/// over the document (masked as `query` masks it, when the document is a state) and ends within its
/// budget, with the same results every time, printing JSON that reads back (pretty and compact
/// alike) or refusing to print past its output limit. Panics, hangs and unbounded memory are the
/// findings.
pub fn jsonpath(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (expression, document) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(path) = JsonPath::parse(expression) else {
        return;
    };
    let source = if Document::parse(document).is_ok() {
        document
    } else {
        QUERIED_STATE
    };
    let document = Document::parse(source).expect("checked above");
    run_path(&path, &document);
    if let Ok(state) = parse(source.as_bytes())
        && let Ok(masked) = crate::state::query::document(&state, &path, false)
    {
        run_path(&path, &masked);
    }
}

/// Runs `path` over `document` with a small budget (so that the fuzzer stays fast): the same
/// outcome twice, and whatever prints is JSON.
fn run_path(path: &JsonPath, document: &Document<'_>) {
    let limits = Limits {
        visits: 200_000 + 8 * document.len() as u64,
        kept: 4_096 + document.len() / 8,
        output: (1 << 20) + 16 * document.len() as u64,
    };
    let print = |pretty: bool| {
        path.select(document, limits)
            .map(|mut selection| (selection.len(), selection.to_json(pretty)))
    };
    let compact = print(false);
    assert_eq!(compact, print(false), "a second run differs");
    let Ok((count, Ok(text))) = compact else {
        return;
    };
    check_printed(&text, count);
    if let Ok((_, Ok(pretty))) = print(true) {
        check_printed(&pretty, count);
    }
}

/// `text` is a JSON array of `count` values.
fn check_printed(text: &str, count: usize) {
    let printed =
        Document::parse(text).unwrap_or_else(|error| panic!("printed invalid JSON: {error:?}"));
    let elements = JsonPath::parse("$[*]")
        .expect("a valid path")
        .select(&printed, Limits::for_document(text.len()))
        .expect("listing an array stays within budget")
        .len();
    assert_eq!(
        elements, count,
        "printed {elements} values for {count} results"
    );
}

/// Durations and the deadlines made of them, on up to four lines of text (a deadline, an initial
/// delay, a maximum polling duration and an interval, as a flag or a profile gives them):
/// - any text parses or is refused, never a panic; what parses prints (`humanize`) as text that
///   parses back to it, to the millisecond;
/// - a deadline that far from now is never exactly when the clock cannot hold it, and counts down
///   from the duration otherwise; moving it later or earlier never panics;
/// - a poller with those durations, asked at its start and at its deadline, never panics.
pub fn duration(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let now = Instant::now();
    let mut parsed = [None; 4];
    for (slot, line) in parsed.iter_mut().zip(text.lines()) {
        let Ok(value) = parse_duration(line) else {
            continue;
        };
        let to_the_millisecond = Duration::new(value.as_secs(), value.subsec_millis() * 1_000_000);
        assert_eq!(
            parse_duration(&humanize(value)),
            Ok(to_the_millisecond),
            "{line:?}"
        );
        let deadline = Deadline::from(now, value);
        assert_eq!(deadline.is_never(), now.checked_add(value).is_none());
        let left = deadline.left(now);
        assert!(
            if deadline.is_never() {
                left == Duration::MAX
            } else {
                left == value
            },
            "{line:?}: {left:?}"
        );
        assert_eq!(deadline.has_passed(now), value.is_zero());
        let _ = deadline
            .later_by(value)
            .earlier_by(value)
            .min(Deadline::NEVER)
            .left(now);
        *slot = Some(value);
    }
    let defaults = PollPolicy::default();
    let [deadline, initial_delay, polling, interval] = parsed;
    let interval = interval.unwrap_or(defaults.interval);
    let policy = PollPolicy {
        deadline: deadline.unwrap_or(defaults.deadline),
        initial_delay: initial_delay.unwrap_or(defaults.initial_delay),
        max_polling_duration: polling,
        interval,
        max_interval: interval.saturating_mul(4),
        ..defaults
    };
    let ends = Deadline::from(now, policy.deadline).instant();
    let mut poller = Poller::new(policy, Operation::Create, false, now).with_random(|| 0.5);
    let _ = poller.first_wait();
    for at in [Some(now), ends].into_iter().flatten() {
        let _ = poller.request_timeout(at);
        let _ = poller.observe(at, Observation::status("PENDING", StatusClass::Pending));
    }
}

/// A lock info as a holder (a file beside the state, a server's 423, a lock object) gives it:
/// - anything parses or is refused, never a panic; what is larger than `MAX_LOCK_INFO` is refused;
/// - what parses is shown in a bounded line, however long its fields;
/// - and is written back as JSON that parses to the same lock info.
pub fn lock_info(data: &[u8]) {
    let Some(info) = LockInfo::parse(data) else {
        return;
    };
    assert!(data.len() <= MAX_LOCK_INFO);
    let shown = info.to_string();
    // Five fields are shown, each at most MAX_FIELD_SHOWN characters (of at most 4 bytes) with a
    // note of its length, plus their labels.
    assert!(
        shown.len() <= 5 * (4 * MAX_FIELD_SHOWN + 64) + 128,
        "{} bytes shown",
        shown.len()
    );
    let json = info.to_json();
    if json.len() <= MAX_LOCK_INFO {
        assert_eq!(LockInfo::parse(json.as_bytes()), Some(info));
    }
}
