//! What a remote state string means to the poller. The sets are explicit: a state that is in none of
//! them is unexpected and ends the wait at once. That drops terraform-plugin-sdk's quirk of polling
//! until the timeout when `Pending` is empty: a provider that grows a new state must surface as an
//! error, not as ten silent minutes.

use serde::Deserialize;

/// The meaning of one state string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusClass {
    /// Still on its way (`PROVISIONING`, `in progress`): poll again.
    Pending,
    /// Settled as hoped (`RUNNING`, `succeeded`).
    Target,
    /// Settled as a failure (`failed`, `TERMINATED` while creating).
    Failed,
    /// In no set: the wait stops with an unexpected-state error.
    Unknown,
}

/// The states of one operation, as a profile lists them. Matching is exact, as the SDK's is: OCI
/// writes `RUNNING`, OSB `in progress`, and a case-folded match could hide a typo in a profile.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct States {
    pub pending: Vec<String>,
    pub target: Vec<String>,
    pub failed: Vec<String>,
}

impl States {
    pub fn new(pending: &[&str], target: &[&str], failed: &[&str]) -> States {
        let owned = |states: &[&str]| states.iter().map(|&state| state.to_owned()).collect();
        States {
            pending: owned(pending),
            target: owned(target),
            failed: owned(failed),
        }
    }

    /// Target wins over failed and pending, so a profile that lists a state twice still settles.
    pub fn classify(&self, state: &str) -> StatusClass {
        let listed = |states: &[String]| states.iter().any(|listed| listed == state);
        if listed(&self.target) {
            StatusClass::Target
        } else if listed(&self.failed) {
            StatusClass::Failed
        } else if listed(&self.pending) {
            StatusClass::Pending
        } else {
            StatusClass::Unknown
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oci_instance_states_after_an_async_create() {
        let states = States::new(
            &["MOVING", "PROVISIONING", "STARTING"],
            &["RUNNING"],
            &["TERMINATING", "TERMINATED"],
        );
        assert_eq!(states.classify("PROVISIONING"), StatusClass::Pending);
        assert_eq!(states.classify("RUNNING"), StatusClass::Target);
        assert_eq!(states.classify("TERMINATED"), StatusClass::Failed);
        assert_eq!(states.classify("STOPPED"), StatusClass::Unknown);
        assert_eq!(states.classify("running"), StatusClass::Unknown);
    }

    #[test]
    fn an_empty_pending_set_does_not_make_everything_pending() {
        let states = States::new(&[], &["succeeded"], &["failed"]);
        assert_eq!(states.classify("in progress"), StatusClass::Unknown);
        assert_eq!(states.classify("succeeded"), StatusClass::Target);
    }

    #[test]
    fn target_wins_when_a_state_is_listed_twice() {
        let states = States::new(&["RUNNING"], &["RUNNING"], &["RUNNING"]);
        assert_eq!(states.classify("RUNNING"), StatusClass::Target);
    }

    #[test]
    fn a_profile_lists_them_in_toml() {
        let states: States = toml::from_str(
            r#"
            pending = ["in progress"]
            target = ["succeeded"]
            failed = ["failed"]
            "#,
        )
        .unwrap();
        assert_eq!(
            states,
            States::new(&["in progress"], &["succeeded"], &["failed"])
        );
        assert!(toml::from_str::<States>("pendng = []").is_err());
    }
}
