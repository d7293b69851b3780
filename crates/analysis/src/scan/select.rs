//! Which instances a refresh asks about: by default the stale ones scan finds (transitional or
//! failed status, async creates missing computed attributes, tainted after a timed-out create), or
//! those `--target` and `--type` name; and for each, which operation was in flight (as
//! `scan::status` maps status values to operations), since that decides what "not found" means (right
//! after a create: not visible yet; during a delete: done).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use statectl_state::state::address::{InstanceAddr, Mode, Target};
use statectl_state::state::attr_path::Attributes;
use statectl_state::state::error::shorten;
use statectl_state::state::model::State;
use statectl_state::state::order::instance_groups;
use statectl_state::state::provider::ProviderConfig;

use crate::glob::Glob;
use crate::scan::rules::Rules;
use crate::scan::status::{RulePathError, remote_status};
use crate::scan::{Finding, Rule, scan};

/// The operation a stale instance was in: the scan's mapping (`scan::status`), so refresh, audit and
/// scan agree on it.
pub use crate::scan::status::Operation;

/// One instance to reconcile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    pub address: InstanceAddr,
    pub type_name: String,
    pub operation: Operation,
    /// Why it was picked: the scan rule ids, or `--target`.
    pub reasons: Vec<String>,
    /// Its current object's raw `attributes`, when it has an attributes object.
    pub attributes: Option<statectl_state::json::Span>,
    /// The provider configuration it belongs to (the instance's own in OpenTofu's provider
    /// `for_each`, else its resource's): what the plugin reader launches and configures.
    pub provider: Option<Arc<ProviderConfig>>,
    /// What a provider plugin needs to read the object back: the schema version its attributes
    /// were written with, its opaque `private` data, its raw `identity`.
    pub schema_version: u64,
    pub private: Option<String>,
    pub sensitive_attributes: Option<statectl_state::json::Span>,
    pub identity: Option<statectl_state::json::Span>,
    pub identity_schema_version: Option<u64>,
}

/// What the user narrowed the refresh to.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Addresses (`module.app`, `aws_instance.web`, `aws_instance.web[0]`) or globs over addresses.
    pub targets: Vec<String>,
    /// Resource types, globs allowed.
    pub types: Vec<String>,
}

/// The scan rules whose findings mean "ask the provider again".
const STALE_RULES: [Rule; 5] = [
    Rule::TransitionalState,
    Rule::TransitionalStateGeneric,
    Rule::FailedState,
    Rule::MissingComputedAttribute,
    Rule::TaintedAfterTimeout,
];

/// A selection that picks nothing, or a `--target` that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    /// The target as given (shortened) and the address parser's reason.
    #[error("invalid --target `{target}`: {reason}")]
    Target { target: String, reason: String },
    #[error("no managed instance in the state matches the --target and --type given")]
    NothingMatches,
    #[error(transparent)]
    RulePath(#[from] RulePathError),
}

/// The instances to reconcile, in Terraform's order: with targets or types given, every current
/// managed object they name; otherwise the stale ones scan finds.
pub fn select(
    state: &State<'_>,
    rules: &Rules,
    selection: &Selection,
) -> Result<Vec<Selected>, SelectError> {
    let explicit = !selection.targets.is_empty() || !selection.types.is_empty();
    let findings: Vec<Finding> = if explicit {
        Vec::new()
    } else {
        scan(state, rules)?.findings
    };
    let targets: Vec<Matcher> = selection
        .targets
        .iter()
        .map(|text| Matcher::new(text))
        .collect::<Result<_, _>>()?;
    let types: Vec<Glob> = selection.types.iter().map(|text| Glob::new(text)).collect();
    // The stale rules' ids per address, gathered once (a state may have tens of thousands).
    let mut stale: HashMap<&str, Vec<String>> = HashMap::new();
    for finding in &findings {
        if STALE_RULES.iter().any(|rule| rule.id() == finding.rule.id) {
            let reasons = stale.entry(finding.address.as_str()).or_default();
            if !reasons.iter().any(|reason| reason == finding.rule.id) {
                reasons.push(finding.rule.id.to_owned());
            }
        }
    }
    let mut selected = Vec::new();
    for group in instance_groups(state) {
        let resource = group.resource;
        let Some(current) = group.current else {
            continue;
        };
        if resource.address.mode != Mode::Managed {
            continue;
        }
        let address = group.address();
        let text = address.to_string();
        let reasons: Vec<String> = if explicit {
            let by_target = targets.is_empty()
                || targets
                    .iter()
                    .any(|matcher| matcher.matches(&address, &text));
            let by_type = types.is_empty()
                || types
                    .iter()
                    .any(|glob| glob.matches(&resource.address.type_name));
            if !(by_target && by_type) {
                continue;
            }
            vec!["--target".to_owned()]
        } else {
            let Some(reasons) = stale.get(text.as_str()) else {
                continue;
            };
            reasons.clone()
        };
        let operation = match current.attributes_json(state.source) {
            Some(raw) => {
                let attributes = Attributes::new(raw);
                remote_status(&rules.catalog, &resource.address.type_name, &attributes)
                    .map_err(|error| {
                        RulePathError::new(&resource.address.type_name, &address, error)
                    })?
                    .operation(&attributes)
            }
            None => Operation::Read,
        };
        selected.push(Selected {
            address,
            type_name: resource.address.type_name.clone(),
            operation,
            reasons,
            attributes: current
                .attributes()
                .filter(|span| span.of(state.source) != "null"),
            provider: current
                .provider
                .clone()
                .or_else(|| resource.provider.clone()),
            schema_version: current.schema_version,
            private: current.private(state.source).map(Cow::into_owned),
            sensitive_attributes: current.sensitive_attributes(),
            identity: current.identity(),
            identity_schema_version: current.identity_schema_version(state.source),
        });
    }
    if explicit && selected.is_empty() {
        return Err(SelectError::NothingMatches);
    }
    Ok(selected)
}

/// A `--target`: an address as `terraform state list` reads it, or a glob over addresses.
enum Matcher {
    Address(Target),
    Glob(Glob),
}

impl Matcher {
    fn new(text: &str) -> Result<Matcher, SelectError> {
        if Glob::is_glob(text) {
            return Ok(Matcher::Glob(Glob::new(text)));
        }
        Target::parse(text)
            .map(Matcher::Address)
            .map_err(|error| SelectError::Target {
                target: shorten(text).into_owned(),
                reason: error.to_string(),
            })
    }

    fn matches(&self, address: &InstanceAddr, text: &str) -> bool {
        match self {
            Matcher::Address(target) => target.matches(address),
            Matcher::Glob(glob) => glob.matches(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::scan_fixture as fixture;
    use statectl_state::state::parse;

    #[test]
    fn picks_the_stale_instances_scan_finds_with_their_operation() {
        let bytes = fixture("oci-async-provisioning.tfstate");
        let state = parse(&bytes).unwrap();
        let picked = select(&state, &Rules::default(), &Selection::default()).unwrap();
        assert_eq!(picked.len(), 1, "{picked:?}");
        assert_eq!(picked[0].address.to_string(), "oci_core_instance.app");
        assert_eq!(picked[0].operation, Operation::Create);
        assert_eq!(
            picked[0].reasons,
            vec!["transitional-state", "missing-computed-attribute"]
        );
        let bytes = fixture("cf-tainted-in-progress.tfstate");
        let state = parse(&bytes).unwrap();
        let picked = select(&state, &Rules::default(), &Selection::default()).unwrap();
        assert_eq!(picked[0].operation, Operation::Create);
        assert_eq!(picked[0].reasons, vec!["tainted-after-timeout"]);
        // Real states: a Helm upgrade left pending (an update), a Hetzner server still initializing
        // (a create), as the scan's status mapping reads them.
        for (name, address, operation) in [
            (
                "real/helm-pending-upgrade.tfstate",
                "helm_release.argocd",
                Operation::Update,
            ),
            (
                "real/hcloud-initializing.tfstate",
                "hcloud_server.authos_control_plane",
                Operation::Create,
            ),
        ] {
            let bytes = fixture(name);
            let state = parse(&bytes).unwrap();
            let picked = select(&state, &Rules::default(), &Selection::default()).unwrap();
            assert_eq!(picked.len(), 1, "{name}: {picked:?}");
            assert_eq!(picked[0].address.to_string(), address);
            assert_eq!(picked[0].operation, operation, "{name}");
            assert_eq!(picked[0].reasons, vec!["transitional-state"]);
        }
        // A clean state has nothing stale.
        let bytes = fixture("clean.tfstate");
        assert!(
            select(
                &parse(&bytes).unwrap(),
                &Rules::default(),
                &Selection::default()
            )
            .unwrap()
            .is_empty()
        );
    }

    #[test]
    fn targets_and_types_pick_any_managed_instance() {
        let bytes = fixture("clean.tfstate");
        let state = parse(&bytes).unwrap();
        let by_target = Selection {
            targets: vec!["oci_core_vcn.main".into(), "aws_*".into()],
            types: vec![],
        };
        let picked: Vec<String> = select(&state, &Rules::default(), &by_target)
            .unwrap()
            .iter()
            .map(|one| one.address.to_string())
            .collect();
        assert_eq!(
            picked,
            vec![
                "aws_db_instance.orders",
                "aws_security_group.db",
                "oci_core_vcn.main"
            ]
        );
        let by_type = Selection {
            targets: vec![],
            types: vec!["oci_*".into()],
        };
        assert_eq!(
            select(&state, &Rules::default(), &by_type).unwrap().len(),
            3
        );
        let nothing = Selection {
            targets: vec!["module.nope".into()],
            types: vec![],
        };
        assert_eq!(
            select(&state, &Rules::default(), &nothing),
            Err(SelectError::NothingMatches)
        );
        let bad = Selection {
            targets: vec!["aws_instance.".into()],
            types: vec![],
        };
        assert!(
            select(&state, &Rules::default(), &bad)
                .unwrap_err()
                .to_string()
                .starts_with("invalid --target `aws_instance.`: ")
        );
    }
}
