//! The detectors: one pass over a parsed state's instances, in Terraform's order, producing findings.
//! Attributes are read in place: from the parse's notes of the few the detectors ask for
//! (`noted_attributes`), else by trusted walks over the raw JSON, so scanning costs little more than
//! parsing.

use std::sync::Arc;

use statectl_state::json::keys::MemberNames;
use statectl_state::json::{LineIndex, Span};
use statectl_state::state::address::Mode;
use statectl_state::state::attr_path::{AttrPath, Attributes, MemberRead, Step, TooCostly, follow};
use statectl_state::state::layout::Flavour;
use statectl_state::state::model::{Instance, Resource, State};
use statectl_state::state::notes::Noting;
use statectl_state::state::order::{InstanceGroup, each_instance_group_in, group_ranges};
use statectl_state::state::sensitive::MASK;

use crate::scan::catalog::{Catalog, Entry};
use crate::scan::checks::failed_checks;
use crate::scan::finding::{Evidence, Finding, Rule};
use crate::scan::hint;
use crate::scan::rules::Rules;
use crate::scan::secrets::Secrets;
use crate::scan::status::{
    RemoteStatus, RulePathError, STATUS_NAMES, decoded_string, remote_status_by,
};

/// Below this many instance objects a part, a thread costs more than it saves (below 4,096 one
/// thread is as fast as two).
const PART_INSTANCES: usize = 2048;

/// The top-level attributes the detectors read (from the catalog, the rules file's entries and
/// generic names, and the few they always read): a parse asked to note these (`parse_noting`) spares
/// the detectors a walk over every member of every instance's attributes. Any other attribute is
/// still found, by walking.
fn noted_attributes(rules: &Rules) -> MemberNames {
    let catalog = &rules.catalog;
    let first_steps = catalog.all_entries().filter_map(|entry| match &entry.path {
        Some(AttrPath::Steps(steps)) => match steps.first() {
            Some(Step::Member(name)) => Some(name.as_str()),
            _ => None,
        },
        _ => None,
    });
    let required = catalog
        .all_entries()
        .flat_map(|entry| entry.required.iter().map(String::as_str));
    MemberNames::new(
        ALWAYS_READ
            .iter()
            .chain(&STATUS_NAMES)
            .copied()
            .chain(catalog.generic.attributes.iter().map(String::as_str))
            .chain(first_steps)
            .chain(required),
    )
}

/// What a scan with `rules` asks the parse to note (`parse_noting`): the attributes it reads
/// ([`noted_attributes`]), and the text's lines when its findings are to be located.
pub fn noting(rules: &Rules) -> Noting {
    Noting {
        members: Arc::new(noted_attributes(rules)),
        copies: true,
        lines: rules.locations,
    }
}

/// The attributes read of every instance whatever its type: `async` and `id` here,
/// `last_operation` by `RemoteStatus::operation`.
const ALWAYS_READ: [&str; 3] = ["async", "id", "last_operation"];

/// What scanning one state found.
#[derive(Debug)]
pub struct Detected {
    pub findings: Vec<Finding>,
    /// The state's instances, by address as `list` and `summary` count them (a deposed object is
    /// not an instance).
    pub instances: usize,
}

/// Scans one parsed state. A rules file's JSONPath that needs more work than an instance's
/// attributes allow stops the scan with an error that names it.
pub fn scan(state: &State<'_>, rules: &Rules) -> Result<Detected, RulePathError> {
    // Detection allocates little, so (unlike parsing) it splits well over threads. Each thread
    // gathers the groups it scans: that reads every instance record (long out of cache after the
    // parse), as the detectors do next, and gathering them all first was a wait of its own.
    let parts = statectl_state::parts::parts(state.order.len(), PART_INSTANCES).max(1);
    let ranges = group_ranges(state, parts);
    let (mut findings, mut offsets, mut instances) = (Vec::new(), Vec::new(), 0);
    for part in statectl_state::parts::each_on_a_thread(&ranges, |objects| {
        let groups: Vec<_> = each_instance_group_in(state, objects.clone()).collect();
        scan_groups(state, rules, &groups).map(|located| (located, groups.len()))
    }) {
        let ((more, more_offsets), groups) = part?;
        instances += groups;
        let shift = findings.len();
        findings.extend(more);
        offsets.extend(
            more_offsets
                .into_iter()
                .map(|(index, offset)| (index + shift, offset)),
        );
    }
    check_results(state, rules, &mut findings, &mut offsets);
    if rules.locations {
        locate(state, &offsets, &mut findings);
    }
    Ok(Detected {
        findings,
        instances,
    })
}

/// How many instances ahead of the one it reads the scan asks for the memory of their noted
/// values: far enough that they arrive in time (an instance takes about a memory trip to read).
const ASK_AHEAD: usize = 4;

/// Findings, and for each the byte offset of its instance object.
type Located = (Vec<Finding>, Vec<(usize, usize)>);

/// The findings for `groups`, and for each the byte offset of its instance object.
fn scan_groups(
    state: &State<'_>,
    rules: &Rules,
    groups: &[InstanceGroup<'_, '_>],
) -> Result<Located, RulePathError> {
    let mut findings = Vec::new();
    let mut offsets = Vec::new();
    // One vector for every instance's attribute members, in turn.
    let mut memory = Vec::new();
    let mut read_back = ReadBack::default();
    // The catalog's entries for the resource the last group was of: the groups of one resource
    // stand together, and looking its type up for each instance (twice) was a hash of its name each
    // time.
    let mut entries_of: Option<(&Resource<'_>, &[Entry])> = None;
    for (index, group) in groups.iter().enumerate() {
        if let Some(current) = groups
            .get(index + ASK_AHEAD)
            .and_then(|ahead| ahead.current)
        {
            Attributes::ask_ahead(state, current);
        }
        let group_start = findings.len();
        let resource = group.resource;
        if resource.address.mode == Mode::Data && !rules.data_sources {
            continue;
        }
        // The address is formatted only when needed: for ignores, or once something is found.
        let mut address = String::new();
        if !rules.ignore.is_empty() {
            address = group.address().to_string();
            if rules.ignored(&address) {
                continue;
            }
        }
        if let Some(current) = group.current {
            let before = findings.len();
            let entries = match entries_of {
                Some((of, entries)) if std::ptr::eq(of, resource) => entries,
                _ => {
                    let entries = rules.catalog.entries(&resource.address.type_name);
                    entries_of = Some((resource, entries));
                    entries
                }
            };
            let object = Object {
                resource,
                instance: current,
                entries,
            };
            current_object(state, rules, &object, &mut findings, &mut memory).map_err(|error| {
                RulePathError::new(&resource.address.type_name, &group.address(), error)
            })?;
            if findings.len() > before && address.is_empty() {
                address = group.address().to_string();
            }
            // Read only for an instance with findings: most have none, and scanning stays a walk.
            let secrets = if findings.len() > before {
                Secrets::of(current, &resource.address.type_name, state.source)
            } else {
                Secrets::None
            };
            for (index, finding) in findings.iter_mut().enumerate().skip(before) {
                secrets.mask(finding);
                finding.address.clone_from(&address);
                if let Some(rule) = Rule::from_id(finding.rule.id) {
                    finding.hint =
                        hint_for(&rules.catalog, rule, &address, &resource.address.type_name);
                    // The catalog's word on what fixes this type's pending or failed object.
                    if matches!(rule, Rule::TransitionalState | Rule::TaintedAfterTimeout)
                        && let Some(extra) = rules
                            .catalog
                            .entries(&resource.address.type_name)
                            .iter()
                            .find_map(|entry| entry.hint.as_deref())
                    {
                        finding.hint = format!("{extra}; {}", finding.hint);
                    }
                }
                offsets.push((index, current.span.start));
            }
        }
        for deposed in &group.deposed {
            if address.is_empty() {
                address = group.address().to_string();
            }
            findings.push(deposed_object(state, rules, resource, deposed, &address));
            offsets.push((findings.len() - 1, deposed.span.start));
        }
        if findings.len() > group_start {
            // Its objects were read again for what was found.
            for object in group.current.iter().chain(&group.deposed) {
                read_back.read(state, object.span);
            }
        }
    }
    read_back.done(state);
    Ok((findings, offsets))
}

/// Where in the text a scan went back to for its findings (their secrets, their deposed objects)
/// since it last gave those pages back (`State::give_back_around`, for a state whose parse gave
/// back the pages it passed; nothing otherwise). A freshly read file sits in the page cache in 2 MB
/// folios, each mapped whole at a touch: the 1,744 findings of the 252 MB state touched nearly all
/// of them, and the scan held the whole file again.
#[derive(Default)]
struct ReadBack(Option<Span>);

/// How far apart the places read back may spread before their pages are given back: a few
/// folios at a time, a few dozen calls to the kernel for a large state.
const READ_BACK_SPREAD: usize = 4 << 20;

impl ReadBack {
    /// `span` of the text was read again.
    fn read(&mut self, state: &State<'_>, span: Span) {
        let spread = match self.0 {
            Some(read) => Span::new(read.start.min(span.start), read.end.max(span.end)),
            None => span,
        };
        if spread.end - spread.start > READ_BACK_SPREAD {
            state.give_back_around(spread.start, spread.end);
            self.0 = None;
        } else {
            self.0 = Some(spread);
        }
    }

    /// Gives back what was read since the last time.
    fn done(self, state: &State<'_>) {
        if let Some(read) = self.0 {
            state.give_back_around(read.start, read.end);
        }
    }
}

/// A deposed object, with its key and remote id.
fn deposed_object(
    state: &State<'_>,
    rules: &Rules,
    resource: &Resource<'_>,
    deposed: &Instance<'_>,
    address: &str,
) -> Finding {
    let key = deposed.deposed.as_deref().unwrap_or_default();
    let secrets = Secrets::of(deposed, &resource.address.type_name, state.source);
    let id = deposed.attributes_json(state.source).and_then(|raw| {
        follow(raw, &[Step::Member("id".into())]).map(|span| span.of(raw).to_owned())
    });
    let mut evidence = vec![Evidence {
        path: "deposed".into(),
        value: format!("\"{key}\""),
    }];
    if let Some(id) = &id {
        evidence.push(Evidence {
            path: "id".into(),
            value: id.clone(),
        });
    }
    let remote = if secrets.covers("id") {
        MASK.to_owned()
    } else {
        id.as_deref()
            .and_then(decoded_string)
            .unwrap_or_else(|| "unknown".into())
    };
    let mut finding = finding(
        rules,
        Rule::DeposedObject,
        format!("{address} (deposed object {key})"),
        resource,
        format!(
            "deposed object {key} (remote id {remote}) is still in state and will be destroyed by the next apply"
        ),
        evidence,
    );
    finding.hint = format!(
        "the next `terraform apply` destroys it; if its remote object is already gone, or must stay, `{}` drops it from the state",
        hint::forget_command(address, Some(key))
    );
    secrets.mask(&mut finding);
    finding
}

/// The hint for a finding on the current object at `address`, naming the commands that act on it.
fn hint_for(catalog: &Catalog, rule: Rule, address: &str, type_name: &str) -> String {
    match rule {
        Rule::TransitionalState | Rule::TransitionalStateGeneric => format!(
            "refresh it to learn whether the operation finished: `{}`",
            hint::refresh_command(catalog, address, type_name)
        ),
        Rule::FailedState => format!(
            "inspect the remote object; if it is broken, `{}` and the next `terraform apply` replaces it",
            hint::taint_command(address)
        ),
        Rule::MissingComputedAttribute => format!(
            "refresh it: a finished create fills these attributes (`{}`)",
            hint::refresh_command(catalog, address, type_name)
        ),
        Rule::Tainted => format!(
            "if the remote object is healthy, `{}`; otherwise the next `terraform apply` replaces it",
            hint::untaint_command(address)
        ),
        Rule::TaintedAfterTimeout => format!(
            "refresh first (`{}`): if the remote object finished creating, `{}` instead of letting `terraform apply` replace it",
            hint::refresh_command(catalog, address, type_name),
            hint::untaint_command(address)
        ),
        Rule::MissingId => format!(
            "re-import the object (`{}`) or remove the instance (`{}`)",
            hint::import_command(address),
            hint::forget_command(address, None)
        ),
        Rule::DeposedObject | Rule::CheckFailed | Rule::SkipDestroyAtRisk => rule.help().to_owned(),
    }
}

fn finding(
    rules: &Rules,
    rule: Rule,
    address: String,
    resource: &Resource<'_>,
    message: String,
    evidence: Vec<Evidence>,
) -> Finding {
    Finding {
        rule: rule.info(),
        severity: rules.severity_of(rule),
        address,
        resource_type: Some(resource.address.type_name.clone()),
        message,
        evidence,
        hint: rule.help().to_owned(),
        location: None,
    }
}

/// An instance's current object, with its resource and the catalog's entries for its type.
struct Object<'r, 'a> {
    resource: &'r Resource<'a>,
    instance: &'r Instance<'a>,
    entries: &'r [Entry],
}

/// The detectors that look at an instance's current object.
fn current_object<'s>(
    state: &'s State<'s>,
    rules: &Rules,
    object: &Object<'_, '_>,
    findings: &mut Vec<Finding>,
    memory: &mut Vec<MemberRead<'s>>,
) -> Result<(), TooCostly> {
    let Object {
        resource,
        instance,
        entries,
    } = *object;
    let attributes = Attributes::of_instance_in(state, instance, std::mem::take(memory));
    let RemoteStatus {
        transitional,
        failed,
        generic,
    } = match &attributes {
        Some(attributes) => remote_status_by(&rules.catalog, entries, attributes)?,
        None => RemoteStatus::default(),
    };
    taint_and_transition(
        rules,
        resource,
        instance,
        attributes.as_ref(),
        &transitional,
        generic,
        findings,
    );
    if !failed.is_empty() {
        let message = format!(
            "{}: the remote object reported a failure",
            describe(&failed)
        );
        findings.push(finding(
            rules,
            Rule::FailedState,
            String::new(),
            resource,
            message,
            failed.clone(),
        ));
    }
    if let Some(attributes) = &attributes {
        missing_computed(
            attributes,
            entries,
            instance,
            !transitional.is_empty() || !failed.is_empty(),
            rules,
            resource,
            findings,
        );
    }
    missing_id(
        state,
        instance,
        attributes.as_ref(),
        rules,
        resource,
        findings,
    );
    if instance.skip_destroy {
        let written_by = match state.style.flavour {
            Flavour::OpenTofu => "this state",
            Flavour::Terraform => "this state, which looks last written by Terraform,",
        };
        findings.push(finding(
            rules,
            Rule::SkipDestroyAtRisk,
            String::new(),
            resource,
            format!("{written_by} carries OpenTofu's `skip_destroy` (lifecycle destroy = false); Terraform drops the flag when it writes the state, and a destroy then deletes the object"),
            vec![Evidence { path: "skip_destroy".into(), value: "true".into() }],
        ));
    }
    if let Some(attributes) = attributes {
        *memory = attributes.into_memory();
    }
    Ok(())
}

/// The evidence as a list for a message: `path = value, path = value`.
fn describe(evidence: &[Evidence]) -> String {
    evidence
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Tainted (after a timed-out create when the status is transitional), or a status that shows an
/// unfinished operation: one finding at most, the most specific.
fn taint_and_transition(
    rules: &Rules,
    resource: &Resource<'_>,
    instance: &Instance<'_>,
    attributes: Option<&Attributes<'_>>,
    transitional: &[Evidence],
    generic: bool,
    findings: &mut Vec<Finding>,
) {
    if instance.tainted && !transitional.is_empty() {
        let message = format!(
            "tainted while {}: the create timed out or its wait failed, the remote object may be healthy, and the next apply would replace it",
            describe(transitional)
        );
        findings.push(finding(
            rules,
            Rule::TaintedAfterTimeout,
            String::new(),
            resource,
            message,
            transitional.to_vec(),
        ));
    } else if instance.tainted {
        findings.push(finding(
            rules,
            Rule::Tainted,
            String::new(),
            resource,
            "tainted: the next apply destroys and re-creates it".into(),
            vec![Evidence {
                path: "status".into(),
                value: "\"tainted\"".into(),
            }],
        ));
    } else if !transitional.is_empty() {
        let rule = if generic {
            Rule::TransitionalStateGeneric
        } else {
            Rule::TransitionalState
        };
        // Names the operation the status shows, as refresh and the audit read it.
        let status = RemoteStatus {
            transitional: transitional.to_vec(),
            failed: Vec::new(),
            generic,
        };
        let message = attributes.map_or_else(
            || describe(transitional),
            |attributes| {
                format!(
                    "the remote object was {} when Terraform saved the state",
                    status.describe(attributes)
                )
            },
        );
        findings.push(finding(
            rules,
            rule,
            String::new(),
            resource,
            message,
            transitional.to_vec(),
        ));
    }
}

/// Computed attributes a finished create fills, missing (null or "") on an instance created
/// asynchronously (`async = true`) or whose status shows an unfinished or failed operation, or that is
/// tainted. A steady instance is not checked: a private OCI instance has no public IP by design.
fn missing_computed(
    attributes: &Attributes<'_>,
    entries: &[Entry],
    instance: &Instance<'_>,
    unfinished: bool,
    rules: &Rules,
    resource: &Resource<'_>,
    findings: &mut Vec<Finding>,
) {
    let required: Vec<&String> = entries.iter().flat_map(|entry| &entry.required).collect();
    if required.is_empty() {
        return;
    }
    let is_async = attributes.get("async") == Some("true");
    if !(is_async || unfinished || instance.tainted) {
        return;
    }
    let evidence: Vec<Evidence> = required
        .iter()
        .filter_map(|name| {
            let value = attributes.get(name).unwrap_or("null");
            (value == "null" || value == "\"\"").then(|| Evidence {
                path: (*name).clone(),
                value: value.to_owned(),
            })
        })
        .collect();
    if evidence.is_empty() {
        return;
    }
    let names: Vec<&str> = evidence.iter().map(|item| item.path.as_str()).collect();
    let how = if is_async {
        "created with `async = true`; "
    } else {
        ""
    };
    let message = format!(
        "{how}{} still missing: {}",
        if names.len() == 1 {
            "a computed attribute is"
        } else {
            "computed attributes are"
        },
        names.join(", ")
    );
    findings.push(finding(
        rules,
        Rule::MissingComputedAttribute,
        String::new(),
        resource,
        message,
        evidence,
    ));
}

/// A managed instance whose `id` is present but null or empty. (A schema without `id`, as some
/// plugin-framework resources have, is not a finding.)
fn missing_id(
    state: &State<'_>,
    instance: &Instance<'_>,
    attributes: Option<&Attributes<'_>>,
    rules: &Rules,
    resource: &Resource<'_>,
    findings: &mut Vec<Finding>,
) {
    if resource.address.mode != Mode::Managed {
        return;
    }
    let flat = instance
        .attributes_flat()
        .map(|span| Attributes::new(span.of(state.source)));
    let Some(value) = attributes
        .or(flat.as_ref())
        .and_then(|attributes| attributes.get("id"))
    else {
        return;
    };
    if value == "null" || value == "\"\"" {
        findings.push(finding(
            rules,
            Rule::MissingId,
            String::new(),
            resource,
            format!("`id` is {value}: Terraform cannot refresh or destroy this object"),
            vec![Evidence {
                path: "id".into(),
                value: value.to_owned(),
            }],
        ));
    }
}

/// Failed or errored checks, preconditions and postconditions from `check_results`, each located (by
/// `locate`, with the others) at the start of `check_results`.
fn check_results(
    state: &State<'_>,
    rules: &Rules,
    findings: &mut Vec<Finding>,
    offsets: &mut Vec<(usize, usize)>,
) {
    let Some(span) = state.check_results else {
        return;
    };
    for check in failed_checks(span.of(state.source)) {
        let config = check.config.as_deref().unwrap_or("?");
        let address = check.address.as_deref().unwrap_or(config).to_owned();
        if rules.ignored(&address) {
            continue;
        }
        let status = check.status;
        let kind = check.kind.as_deref().unwrap_or("check");
        let summary = if check.messages.is_empty() {
            String::new()
        } else {
            format!(": {}", check.messages.join("; "))
        };
        findings.push(Finding {
            rule: Rule::CheckFailed.info(),
            severity: rules.severity_of(Rule::CheckFailed),
            address,
            resource_type: None,
            message: format!("{kind} condition status `{status}`{summary}"),
            evidence: std::iter::once(Evidence {
                path: "status".into(),
                value: format!("\"{status}\""),
            })
            .chain(check.messages.iter().map(|message| Evidence {
                path: "failure_messages".into(),
                value: serde_json::Value::String(message.to_string()).to_string(),
            }))
            .collect(),
            hint: Rule::CheckFailed.help().to_owned(),
            location: None,
        });
        offsets.push((findings.len() - 1, span.start));
    }
}

/// Sets each finding's line and column from the line index the parse noted, or else one counted
/// now (on every CPU) up to the last finding: a large state has a newline every 25 bytes or so,
/// and `scan` gives the line of each of thousands of findings.
fn locate(state: &State<'_>, offsets: &[(usize, usize)], findings: &mut [Finding]) {
    let mut sorted: Vec<(usize, usize)> = offsets.to_vec();
    sorted.sort_by_key(|&(_, offset)| offset);
    let Some(&(_, last)) = sorted.last() else {
        return;
    };
    let counted;
    let index = if let Some(index) = &state.notes.lines {
        index
    } else {
        let bytes = state.source.as_bytes();
        counted = LineIndex::of(&bytes[..last.min(bytes.len())]);
        &counted
    };
    let in_order: Vec<usize> = sorted.iter().map(|&(_, offset)| offset).collect();
    // Thousands of findings are located in consecutive runs on every CPU (each a count inside a
    // block of the index whose pages the parse gave back: a memory trip each). A run gives back
    // the pages from where the run before ended.
    let threads = statectl_state::parts::parts(in_order.len(), LOCATE_PART_FINDINGS).max(1);
    let share = in_order.len().div_ceil(threads);
    let runs: Vec<(usize, &[usize])> = in_order
        .chunks(share)
        .enumerate()
        .map(|(at, run)| {
            let run_before_ends = if at == 0 { 0 } else { in_order[at * share - 1] };
            (run_before_ends, run)
        })
        .collect();
    let located = statectl_state::parts::each_on_a_thread(&runs, |&(from, run)| {
        // The pages behind each few megabytes located are given back (see `ReadBack`); a state
        // written on one line is read through from one finding to the next.
        let mut given = from;
        let located = index.line_columns_passing(state.source.as_bytes(), run, |offset| {
            if offset - given >= READ_BACK_SPREAD {
                state.give_back_around(given, offset);
                given = offset;
            }
        });
        state.give_back_around(given, run.last().copied().unwrap_or(from));
        located
    });
    for (&(finding, _), location) in sorted.iter().zip(located.into_iter().flatten()) {
        findings[finding].location = Some(location);
    }
}

/// Below this many findings per thread, locating them on threads of their own costs more than it
/// saves.
const LOCATE_PART_FINDINGS: usize = 256;

#[cfg(test)]
mod tests {
    use statectl_state::json::LineColumn;
    use statectl_state::state::parse::{parse, parse_noting};

    use super::*;
    use crate::scan::finding::Severity;

    /// Every instance tainted, so each is a finding whose object the scan reads again (its
    /// secrets, its line): the pages read again are given back as the scan goes.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_scan_of_a_state_read_once_gives_back_what_its_findings_read_again() {
        use std::fmt::Write as _;
        use std::io::Write as _;

        use statectl_state::state::bytes::{map_all, resident_bytes};
        use statectl_state::state::legacy::StateBytes;

        let filler = "x".repeat(8_000);
        let count = 3_000;
        let mut text = String::from(
            "{\n  \"version\": 4,\n  \"terraform_version\": \"1.15.5\",\n  \"serial\": 3,\n  \"lineage\": \"l\",\n  \"outputs\": {},\n  \"resources\": [\n",
        );
        for index in 0..count {
            let _ = write!(
                text,
                "    {{\n      \"mode\": \"managed\",\n      \"type\": \"aws_instance\",\n      \"name\": \"r{index:05}\",\n      \"provider\": \"provider[\\\"registry.terraform.io/hashicorp/aws\\\"]\",\n      \"instances\": [\n        {{\n          \"status\": \"tainted\",\n          \"schema_version\": 1,\n          \"attributes\": {{\"id\": \"i-{index}\", \"user_data\": \"{filler}\"}},\n          \"sensitive_attributes\": [[{{\"type\": \"get_attr\", \"value\": \"user_data\"}}]]\n        }}\n      ]\n    }}{}\n",
                if index + 1 == count { "" } else { "," }
            );
        }
        text.push_str("  ]\n}\n");
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        let bytes = StateBytes::new(map_all(&file).unwrap());
        let rules = Rules::default();
        let state = bytes.parse_noting_reading_once(&noting(&rules)).unwrap();
        let findings = scan(&state, &rules).unwrap().findings;
        let resident = resident_bytes(state.source.as_bytes()).unwrap();
        assert!(
            resident < text.len() / 2,
            "{resident} bytes of {} mapped after the scan",
            text.len()
        );
        // What a scan of the text read in full finds.
        let plain = parse_noting(text.as_bytes(), &noting(&rules)).unwrap();
        assert_eq!(
            format!("{findings:?}"),
            format!("{:?}", scan(&plain, &rules).unwrap().findings)
        );
        assert_eq!(findings.len(), count);
        assert!(findings.iter().all(|finding| finding.location.is_some()));
    }

    #[test]
    fn findings_without_locations_are_the_findings_with_them_but_for_the_location() {
        let text = r#"{"version":4,"terraform_version":"1.15.5","serial":1,"lineage":"l","outputs":{},
"resources":[{"mode":"managed","type":"aws_instance","name":"web","provider":"provider[\"registry.terraform.io/hashicorp/aws\"]",
"instances":[{"status":"tainted","schema_version":1,"attributes":{"id":"i-1"}},
{"deposed":"00000001","schema_version":1,"attributes":{"id":"i-0"}}]}]}"#;
        let state = parse(text.as_bytes()).unwrap();
        let located = scan(&state, &Rules::default()).unwrap().findings;
        let unlocated = scan(
            &state,
            &Rules {
                locations: false,
                ..Rules::default()
            },
        )
        .unwrap()
        .findings;
        assert_eq!(located.len(), 2);
        let lines: Vec<_> = located.iter().map(|finding| finding.location).collect();
        assert_eq!(
            lines,
            [
                Some(LineColumn {
                    line: 3,
                    column: 14
                }),
                Some(LineColumn { line: 4, column: 1 })
            ]
        );
        assert!(unlocated.iter().all(|finding| finding.location.is_none()));
        let without = |findings: Vec<Finding>| {
            findings
                .into_iter()
                .map(|finding| {
                    format!(
                        "{:?}",
                        Finding {
                            location: None,
                            ..finding
                        }
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(without(located), without(unlocated));
    }

    #[test]
    fn locate_gives_each_finding_the_line_and_column_of_its_offset() {
        // Short lines, and a line longer than a block of the line index (findings on it have
        // their line start in a block before); small states, whose lines the parse leaves to
        // `locate`, and large ones (megabytes), whose lines it counts as it checks the UTF-8.
        let short = "{\n  \"version\": 4,\n  \"serial\": 1,\n  \"lineage\": \"é\",\n  \"outputs\": {\n\n    \"日本\": {\"value\": 1, \"type\": \"number\"}\n  },\n  \"resources\": []\n}\n\n";
        let long = |repeat: usize| {
            format!(
                "{{\"version\": 4, \"serial\": 1, \"lineage\": \"{}\",\n\"resources\": []}}\n",
                "é long line ".repeat(repeat)
            )
        };
        let outputs: Vec<String> = (0..120_000)
            .map(|index| {
                format!("    \"o{index}\": {{\"value\": \"é{index}\", \"type\": \"string\"}}")
            })
            .collect();
        let many_lines = format!(
            "{{\n  \"version\": 4,\n  \"serial\": 1,\n  \"lineage\": \"l\",\n  \"outputs\": {{\n{}\n  }},\n  \"resources\": []\n}}\n",
            outputs.join(",\n")
        );
        let noting = Noting {
            members: Arc::new(MemberNames::new(["id"])),
            copies: true,
            lines: true,
        };
        for (text, large) in [
            (short.to_owned(), false),
            (long(2_000), false),
            (long(400_000), true),
            (many_lines, true),
        ] {
            assert_eq!(text.len() >= 4 << 20, large);
            // Every fifth character of a small text; about a thousand places of a large one.
            let step = if large { text.len() / 1000 } else { 5 };
            let noted = parse_noting(text.as_bytes(), &noting).unwrap();
            assert_eq!(
                noted.notes.lines.is_some(),
                large,
                "the parse noted the lines"
            );
            locate_on(&noted, step);
            let plain = parse(text.as_bytes()).unwrap();
            assert!(plain.notes.lines.is_none(), "not asked for");
            locate_on(&plain, step);
        }
    }

    fn locate_on(state: &State<'_>, step: usize) {
        let text = state.source;
        let bytes = text.as_bytes();
        // Out of order, repeated, on a newline, at the very start and at the end.
        let mut wanted: Vec<usize> = vec![text.len(), 0, 1, 2, 40, 40, 3];
        wanted.extend(
            text.char_indices()
                .map(|(offset, _)| offset)
                .filter(|offset| offset % step == 0)
                .rev(),
        );
        // Findings stand on an instance's `{`: always a character's start.
        wanted.retain(|&offset| text.is_char_boundary(offset));
        let offsets: Vec<(usize, usize)> = wanted.iter().copied().enumerate().collect();
        let mut findings: Vec<Finding> = wanted
            .iter()
            .map(|_| Finding {
                rule: Rule::Tainted.info(),
                severity: Severity::Warning,
                address: String::new(),
                resource_type: None,
                message: String::new(),
                evidence: Vec::new(),
                hint: String::new(),
                location: None,
            })
            .collect();
        locate(state, &offsets, &mut findings);
        // `LineColumn::of` at each place, in one pass: counting from the start for each of a
        // thousand places of a large text took minutes in a debug build.
        let mut places = wanted.clone();
        places.sort_unstable();
        places.dedup();
        let mut expected = std::collections::HashMap::new();
        let mut at = 0;
        let mut before = LineColumn { line: 1, column: 1 };
        for &place in &places {
            for &byte in &bytes[at..place] {
                if byte == b'\n' {
                    before = LineColumn {
                        line: before.line + 1,
                        column: 1,
                    };
                } else if byte & 0xC0 != 0x80 {
                    before.column += 1;
                }
            }
            at = place;
            expected.insert(place, before);
        }
        assert_eq!(expected[&40], LineColumn::of(bytes, 40));
        for (finding, offset) in findings.iter().zip(&wanted) {
            assert_eq!(finding.location, Some(expected[offset]), "offset {offset}");
        }
    }
}
