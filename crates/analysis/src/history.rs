//! What changed from one version of a state to the next, for `statectl history`: the objects
//! added, removed and changed (as `diff` counts them), and the two marks of a bad push: the lineage
//! changed (another state was pushed over this one) or the serial went down (an older state was).

use statectl_state::state::State;

use crate::diff::{Counts, diff};

/// The step from an older version to a newer one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub counts: Counts,
    /// The newer version has another lineage: it is another state.
    pub lineage_changed: bool,
    /// The newer version's serial is below the older one's.
    pub serial_went_down: bool,
}

/// The step from `older` to `newer`.
pub fn step(older: &State<'_>, newer: &State<'_>) -> Step {
    Step {
        counts: diff(older, newer).counts(),
        lineage_changed: older.lineage != newer.lineage,
        serial_went_down: newer.serial < older.serial,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(serial: u64, lineage: &str, names: &[&str]) -> String {
        let resources: Vec<String> = names
            .iter()
            .map(|name| {
                format!(
                    r#"{{"mode": "managed", "type": "terraform_data", "name": "{name}", "provider": "provider[\"terraform.io/builtin/terraform\"]", "instances": [{{"schema_version": 0, "attributes": {{"id": "{name}"}}}}]}}"#
                )
            })
            .collect();
        format!(
            r#"{{"version": 4, "terraform_version": "1.15.5", "serial": {serial}, "lineage": "{lineage}", "outputs": {{}}, "resources": [{}]}}"#,
            resources.join(", ")
        )
    }

    #[test]
    fn a_step_counts_the_objects_and_flags_a_lineage_change_and_a_serial_going_down() {
        let older = state(3, "l-1", &["a", "b"]);
        let newer = state(4, "l-1", &["b", "c", "d"]);
        let older = statectl_state::state::parse(older.as_bytes()).unwrap();
        let newer = statectl_state::state::parse(newer.as_bytes()).unwrap();
        let forward = step(&older, &newer);
        assert_eq!(
            (
                forward.counts.added,
                forward.counts.removed,
                forward.counts.changed
            ),
            (2, 1, 0)
        );
        assert!(!forward.lineage_changed && !forward.serial_went_down);
        let other = state(1, "l-2", &["a", "b"]);
        let other = statectl_state::state::parse(other.as_bytes()).unwrap();
        let bad = step(&newer, &other);
        assert!(bad.lineage_changed && bad.serial_went_down);
    }
}
