//! What a "not found" answer means depends on the operation that was in flight: right after a create,
//! a 404 is eventual consistency (the object is not visible yet: ask again); for an existing object it
//! means gone; during a delete it is the success. OSB adds 410 Gone, which means success only for a
//! delete and is invalid (keep polling) during a create or an update. Gone rules are per status code
//! and per operation, and apply to the status request's answer.

use std::collections::BTreeMap;

use crate::state::operation::Operation;

/// What an answer with a given status code means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoneAction {
    /// The remote object no longer exists (for a delete: the delete is done).
    Gone,
    /// Keep polling; the poller counts these against the `not_found_checks` setting.
    Retry,
    /// An error outcome, with the status code.
    Error,
}

impl GoneAction {
    pub fn parse(text: &str) -> Option<GoneAction> {
        match text {
            "gone" => Some(GoneAction::Gone),
            "retry" => Some(GoneAction::Retry),
            "error" => Some(GoneAction::Error),
            _ => None,
        }
    }
}

/// The actions for one status code, per operation; `default` covers the operations not named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoneRule {
    pub create: Option<GoneAction>,
    pub update: Option<GoneAction>,
    pub delete: Option<GoneAction>,
    pub read: Option<GoneAction>,
    pub default: Option<GoneAction>,
}

impl GoneRule {
    fn action(&self, operation: Operation) -> Option<GoneAction> {
        let specific = match operation {
            Operation::Create => self.create,
            Operation::Update => self.update,
            Operation::Delete => self.delete,
            Operation::Read => self.read,
        };
        specific.or(self.default)
    }
}

/// A profile's gone rules, by status code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoneRules {
    pub codes: BTreeMap<u16, GoneRule>,
}

impl Default for GoneRules {
    /// 404: retry right after a create (eventual consistency), gone otherwise; 410: gone.
    fn default() -> GoneRules {
        GoneRules {
            codes: BTreeMap::from([
                (
                    404,
                    GoneRule {
                        create: Some(GoneAction::Retry),
                        default: Some(GoneAction::Gone),
                        ..GoneRule::default()
                    },
                ),
                (
                    410,
                    GoneRule {
                        default: Some(GoneAction::Gone),
                        ..GoneRule::default()
                    },
                ),
            ]),
        }
    }
}

impl GoneRules {
    /// The action for an answer with `status` during `operation`; `None` when no rule covers it
    /// (the poller's usual handling of that status applies).
    pub fn action(&self, status: u16, operation: Operation) -> Option<GoneAction> {
        self.codes.get(&status)?.action(operation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_default_404_after_a_create_is_retried_and_otherwise_gone() {
        let rules = GoneRules::default();
        assert_eq!(
            rules.action(404, Operation::Create),
            Some(GoneAction::Retry)
        );
        assert_eq!(rules.action(404, Operation::Read), Some(GoneAction::Gone));
        assert_eq!(rules.action(404, Operation::Delete), Some(GoneAction::Gone));
        assert_eq!(rules.action(410, Operation::Update), Some(GoneAction::Gone));
        assert_eq!(rules.action(500, Operation::Read), None);
    }

    #[test]
    fn osb_410_is_success_only_for_a_delete() {
        let mut rules = GoneRules::default();
        rules.codes.insert(
            410,
            GoneRule {
                delete: Some(GoneAction::Gone),
                default: Some(GoneAction::Retry),
                ..GoneRule::default()
            },
        );
        assert_eq!(rules.action(410, Operation::Delete), Some(GoneAction::Gone));
        assert_eq!(
            rules.action(410, Operation::Create),
            Some(GoneAction::Retry)
        );
        assert_eq!(
            rules.action(410, Operation::Update),
            Some(GoneAction::Retry)
        );
    }
}
