//! For the tests of the URL readers (here and in each backend): what a state URL names when no
//! flag overrides it, the state, the listing, or the one line that refuses it.

use super::{Overrides, from_url, listing_from_url};
use crate::config::BackendConfig;

/// The state `url` names.
pub(crate) fn state_at(url: &str) -> BackendConfig {
    from_url(url, &Overrides::default())
        .unwrap()
        .unwrap_or_else(|| panic!("{url} names no remote state"))
}

/// The listing `url` names (its configuration and prefix), or `None` where it names one state.
pub(crate) fn listing(url: &str) -> Option<(BackendConfig, String)> {
    listing_from_url(url, &Overrides::default()).unwrap()
}

/// The message that refuses `url`.
pub(crate) fn refusal(url: &str) -> String {
    from_url(url, &Overrides::default()).unwrap_err().message
}

/// The listing `url` names, checked to be a `kind` backend's listing of `prefix` that names the
/// URL as its origin.
pub(crate) fn listed(url: &str, kind: &str, prefix: &str) -> BackendConfig {
    let (config, listed) = listing(url).unwrap_or_else(|| panic!("{url} names no listing"));
    assert_eq!(
        (
            config.kind.as_str(),
            listed.as_str(),
            config.origin.as_str()
        ),
        (kind, prefix, url),
        "{url}"
    );
    config
}

/// The state `url` names, checked to be a `kind` backend's with the `arguments` given.
pub(crate) fn state_with(url: &str, kind: &str, arguments: &[(&str, &str)]) -> BackendConfig {
    let config = state_at(url);
    assert_eq!(config.kind, kind, "{url}");
    for (name, value) in arguments {
        assert_eq!(
            config.string(name).as_deref(),
            Some(*value),
            "{url}: {name}"
        );
    }
    config
}
