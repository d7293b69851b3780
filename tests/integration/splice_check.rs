//! A write checks its new state by construction (`check_splice`: the untouched bytes are borrowed
//! runs of the original, each re-rendered object is parsed alone) instead of parsing the whole new
//! state again. These tests prove the two checks agree: for many objects of every test and corpus
//! state and of generated states (indented, compact, odd number spellings, unknown keys, deposed
//! objects), taint, untaint and forget give a new state that the full parse accepts with exactly
//! what the cheap check says (same objects, untouched bytes, serial + 1, lineage), the splice's pieces
//! are byte-identical to the original with the rendered object put in its place, and a wrong
//! rendering that the full parse would catch, the cheap check catches too.

use std::fmt::Write as _;

use statectl::state::address::Target;
use statectl::state::legacy::StateBytes;
use statectl::state::mutate::{Mutation, Plan, check_splice, object_of, plan, render_tracked};
use statectl::state::write::render_instance;
use statectl::state::{Instance, State, parse};

use crate::builder::test_and_corpus_states;

/// Objects tried per state: every one of a small state, evenly spread ones of a large one.
const OBJECTS_PER_STATE: usize = 120;

#[test]
fn the_cheap_check_agrees_with_a_full_parse_on_test_and_corpus_states() {
    let files = test_and_corpus_states();
    let mut checked = 0;
    for file in files {
        let bytes = StateBytes::new(std::fs::read(&file).unwrap().into());
        let Ok(state) = bytes.parse() else { continue };
        if bytes.is_upgraded() {
            // A format-3 state is rewritten whole and checked by a full parse (legacy.rs).
            continue;
        }
        checked += splices_agree(&state, &file.display().to_string());
    }
    assert!(checked > 200, "enough mutations were checked: {checked}");
}

#[test]
fn the_cheap_check_agrees_with_a_full_parse_on_generated_states() {
    let mut checked = 0;
    for seed in 0..30 {
        let text = generated_state(seed);
        let state = parse(text.as_bytes()).unwrap_or_else(|error| panic!("seed {seed}: {error}"));
        checked += splices_agree(&state, &format!("generated state {seed}"));
    }
    assert!(checked > 900, "enough mutations were checked: {checked}");
}

/// Taints, untaints and forgets objects of `state` one at a time and checks each new state both
/// ways; returns how many were checked.
fn splices_agree(state: &State<'_>, name: &str) -> usize {
    let objects: Vec<_> = state.instances().collect();
    let step = objects.len().div_ceil(OBJECTS_PER_STATE).max(1);
    let mut checked = 0;
    for (resource, object) in objects.into_iter().step_by(step) {
        let address = object.address(resource);
        for mutation in [
            Mutation::Taint(address.clone()),
            Mutation::Untaint(address.clone()),
            Mutation::Forget(Target::Instance(address.clone())),
        ] {
            let Ok(planned) = plan(state, std::slice::from_ref(&mutation)) else {
                continue;
            };
            if planned.is_empty() {
                continue;
            }
            let context = format!("{name}: {mutation:?}");
            agree(state, &planned, &context);
            wrong_renderings_are_caught(state, &planned, &context);
            checked += 1;
        }
    }
    checked
}

/// The cheap check accepts the splice, and a full parse of the new text confirms everything it
/// relies on; the pieces are the original with each change put in its place, byte for byte.
fn agree(before: &State<'_>, planned: &Plan, context: &str) {
    let applied = render_tracked(before, planned);
    let objects = check_splice(before, planned, &applied)
        .unwrap_or_else(|error| panic!("{context}: the cheap check refused: {}", error.what));
    let text = applied.to_text();
    assert_eq!(text.len(), applied.len(), "{context}: length");
    let after =
        parse(text.as_bytes()).unwrap_or_else(|error| panic!("{context}: full parse: {error}"));
    assert_eq!(after.serial, before.serial + 1, "{context}: serial");
    assert_eq!(after.lineage, before.lineage, "{context}: lineage");
    let changed: Vec<_> = planned
        .steps
        .iter()
        .map(|step| object_of(before, step.object).1.span)
        .collect();
    let removed = planned.steps.iter().filter(|step| step.removes()).count();
    assert_eq!(
        after.order.len() + removed,
        before.order.len(),
        "{context}: object count"
    );
    // Every object in the new state, in order: the untouched ones with their old bytes, each changed
    // one with the text the cheap check returned for it.
    let mut expected: Vec<&str> = Vec::new();
    for (_, object) in ordered(before) {
        match changed.iter().position(|span| *span == object.span) {
            None => expected.push(object.span.of(before.source)),
            Some(at) => expected.extend(objects[at]),
        }
    }
    let found: Vec<&str> = ordered(&after)
        .map(|(_, object)| object.span.of(after.source))
        .collect();
    assert_eq!(found, expected, "{context}: objects");
    if let [step] = &planned.steps[..]
        && !step.removes()
    {
        // One changed object: the pieces are the original with the serial and that object replaced.
        let (_, old) = object_of(before, step.object);
        let serial = before.serial_span.unwrap();
        let mut spliced = String::new();
        let (first, second) = if serial.start < old.span.start {
            (serial, old.span)
        } else {
            (old.span, serial)
        };
        let replacement = |span| {
            if span == serial {
                (before.serial + 1).to_string()
            } else {
                render_instance(before, old, &step.changes)
            }
        };
        spliced.push_str(&before.source[..first.start]);
        spliced.push_str(&replacement(first));
        spliced.push_str(&before.source[first.end..second.start]);
        spliced.push_str(&replacement(second));
        spliced.push_str(&before.source[second.end..]);
        assert!(
            spliced == text,
            "{context}: the pieces differ from the splice"
        );
    }
}

/// Renderings a bug could produce (broken JSON, a second object, another key, a lost or wrong
/// status): the cheap check refuses exactly those the full parse refuses, and refuses every one that
/// breaks what a state needs.
fn wrong_renderings_are_caught(before: &State<'_>, planned: &Plan, context: &str) {
    let Some(step) = planned.steps.iter().find(|step| !step.removes()) else {
        return;
    };
    let (_, old) = object_of(before, step.object);
    let good = render_tracked(before, planned)
        .rendered_text(old.span)
        .unwrap()
        .to_owned();
    let tainted = step.action.taints() || (old.tainted && !untaints(step));
    // (wrong text, whether it breaks the state: the last one only adds an unknown key, which
    // neither check looks at and both keep.)
    let mut wrongs = vec![
        (good[..good.len() - 1].to_owned(), true),
        (good.replacen('{', "[", 1), true),
        (format!("{good},{{}}"), true),
    ];
    if old.index_key.is_some() {
        wrongs.push((
            good.replacen("\"index_key\"", "\"index_key\":\"other\",\"was\"", 1),
            true,
        ));
    }
    if tainted {
        wrongs.push((good.replacen("\"tainted\"", "\"untainted\"", 1), true));
    } else {
        wrongs.push((good.replacen('{', "{\"status\":\"tainted\",", 1), true));
    }
    wrongs.push((good.replacen('{', "{\"x_added\":1,", 1), false));
    for (wrong, breaks) in wrongs {
        let applied = render_tracked(before, planned).with_rendered_text(old.span, wrong.clone());
        let cheap = check_splice(before, planned, &applied).is_ok();
        let full = full_parse_accepts(before, planned, &applied.to_text(), old, &wrong, tainted);
        assert_eq!(
            cheap, full,
            "{context}: the checks disagree on {wrong:?} (cheap {cheap}, full {full})"
        );
        assert_eq!(cheap, !breaks, "{context}: {wrong:?}");
    }
}

/// What parsing the whole new state says: it parses, raises the serial, keeps the lineage and the
/// objects not removed, and holds `object` (as `old` was: same keys, the planned status) in `old`'s
/// place.
fn full_parse_accepts(
    before: &State<'_>,
    planned: &Plan,
    text: &str,
    old: &Instance<'_>,
    object: &str,
    tainted: bool,
) -> bool {
    let Ok(after) = parse(text.as_bytes()) else {
        return false;
    };
    let removed = planned.steps.iter().filter(|step| step.removes()).count();
    if after.serial != before.serial + 1
        || after.lineage != before.lineage
        || after.order.len() + removed != before.order.len()
    {
        return false;
    }
    ordered(&after).any(|(_, candidate)| {
        candidate.span.of(after.source) == object
            && candidate.index_key == old.index_key
            && candidate.deposed == old.deposed
            && candidate.tainted == tainted
    })
}

fn untaints(step: &statectl::state::mutate::Step) -> bool {
    matches!(
        step.action,
        statectl::state::mutate::Action::Untaint | statectl::state::mutate::Action::RefreshUntaint
    )
}

/// The objects of `state` in the order they stand in the file.
fn ordered<'s, 'a>(
    state: &'s State<'a>,
) -> impl Iterator<Item = (&'s statectl::state::Resource<'a>, &'s Instance<'a>)> {
    let mut all: Vec<_> = state.instances().collect();
    all.sort_by_key(|(_, object)| object.span.start);
    all.into_iter()
}

/// An instance's `attributes`, five levels deep: a string, a number spelled one of the ways Go's
/// encoder keeps, an exponent, a map with characters Go escapes.
fn attributes(
    rng: &mut fastrand::Rng,
    pad: &dyn Fn(usize) -> String,
    colon: &str,
    id: &str,
) -> String {
    let mut attributes = String::from("{");
    let _ = write!(
        attributes,
        "{}\"id\"{colon}\"{id}\",{}\"size\"{colon}{},{}\"ratio\"{colon}1.50e1,{}\"tags\"{colon}{{{}\"a&b\"{colon}\"<x>\"{}}}{}",
        pad(6),
        pad(6),
        ["1", "1.0", "-0", "10E2", "12345678901234567890"][rng.usize(..5)],
        pad(6),
        pad(6),
        pad(7),
        pad(6),
        pad(5)
    );
    attributes.push('}');
    attributes
}

/// A state as Terraform or OpenTofu lays it out (or compact, as a hand-made one may be), with what
/// the writer must keep: unknown keys, number spellings, escapes, tainted and deposed objects.
fn generated_state(seed: u64) -> String {
    let mut rng = fastrand::Rng::with_seed(seed);
    let compact = seed % 4 == 3;
    let opentofu = seed % 3 == 1;
    let (nl, indent) = if compact { ("", "") } else { ("\n", "  ") };
    let pad = |depth: usize| format!("{nl}{}", indent.repeat(depth));
    let colon = if compact { ":" } else { ": " };
    let mut resources = Vec::new();
    for resource in 0..rng.u64(3..12) {
        let mode = if rng.u8(..6) == 0 { "data" } else { "managed" };
        let keyed = rng.u8(..3);
        let mut instances = Vec::new();
        // An unkeyed resource has one instance.
        let count = if keyed == 0 { 1 } else { rng.u64(1..6) };
        for index in 0..count {
            let mut members = Vec::new();
            match keyed {
                0 => {}
                1 => members.push(format!("\"index_key\"{colon}{index}")),
                _ => members.push(format!("\"index_key\"{colon}\"k-{index}\\u003c\\\"\"")),
            }
            if mode == "managed" && rng.u8(..4) == 0 {
                members.push(format!("\"status\"{colon}\"tainted\""));
            }
            members.push(format!("\"schema_version\"{colon}{}", rng.u8(..3)));
            let attributes = attributes(&mut rng, &pad, colon, &format!("i-{resource}-{index}"));
            members.push(format!("\"attributes\"{colon}{attributes}"));
            if rng.bool() {
                members.push(format!("\"sensitive_attributes\"{colon}[]"));
            }
            if rng.u8(..5) == 0 {
                members.push(format!("\"x_unknown\"{colon}{{\"kept\"{colon}[1,2.50]}}"));
            }
            let object = |members: &[String]| {
                let body: Vec<String> = members
                    .iter()
                    .map(|member| format!("{}{member}", pad(5)))
                    .collect();
                format!("{{{}{}}}", body.join(","), pad(4))
            };
            if mode == "managed" && rng.u8(..5) == 0 {
                let mut deposed = members.clone();
                deposed.insert(
                    usize::from(keyed != 0),
                    format!(
                        "\"deposed\"{colon}\"{:08x}\"",
                        seed * 10_000 + resource * 100 + index
                    ),
                );
                deposed.retain(|member| !member.starts_with("\"status\""));
                instances.push(object(&deposed));
            }
            instances.push(object(&members));
        }
        let instances: Vec<String> = instances
            .iter()
            .map(|instance| format!("{}{instance}", pad(4)))
            .collect();
        let provider = if opentofu {
            "provider[\\\"registry.opentofu.org/hashicorp/null\\\"]"
        } else {
            "provider[\\\"registry.terraform.io/hashicorp/null\\\"]"
        };
        let module = if rng.u8(..3) == 0 {
            format!("\"module\"{colon}\"module.m{}\",{}", rng.u8(..3), pad(3))
        } else {
            String::new()
        };
        resources.push(format!(
            "{}{{{}{module}\"mode\"{colon}\"{mode}\",{}\"type\"{colon}\"null_resource\",{}\"name\"{colon}\"r{resource}\",{}\"provider\"{colon}\"{provider}\",{}\"instances\"{colon}[{}{}]{}}}",
            pad(2),
            pad(3),
            pad(3),
            pad(3),
            pad(3),
            pad(3),
            instances.join(","),
            pad(3),
            pad(2)
        ));
    }
    let version = if opentofu { "1.8.0" } else { "1.15.5" };
    format!(
        "{{{}\"version\"{colon}4,{}\"terraform_version\"{colon}\"{version}\",{}\"serial\"{colon}{},{}\"lineage\"{colon}\"l-{seed}\",{}\"outputs\"{colon}{{}},{}\"resources\"{colon}[{}{}],{}\"check_results\"{colon}null{}}}{nl}",
        pad(1),
        pad(1),
        pad(1),
        rng.u32(..100_000),
        pad(1),
        pad(1),
        pad(1),
        resources.join(","),
        pad(1),
        pad(1),
        if compact { "" } else { "\n" }
    )
}
