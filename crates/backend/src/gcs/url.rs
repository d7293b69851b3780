//! The `gs://` URLs statectl takes: `gs://bucket/path/to/name.tfstate` names one state, the gcs
//! backend's object `<prefix>/<workspace>.tfstate` (prefix `path/to`, workspace `name`), and
//! `gs://bucket/prefix/` every state below a prefix, for `scan`.

use serde_json::{Map, Value};

use statectl_state::state::store::StoreError;

/// The backend arguments and the workspace `gs://<rest>` names; `url` is the whole URL, for
/// messages.
pub fn state(url: &str, rest: &str) -> Result<(Map<String, Value>, String), StoreError> {
    let (bucket, object) = rest.split_once('/').unwrap_or((rest, ""));
    let (prefix, name) = object.rsplit_once('/').unwrap_or(("", object));
    let workspace = name.strip_suffix(".tfstate").unwrap_or_default();
    if bucket.is_empty() || workspace.is_empty() {
        return Err(StoreError::new(format!(
            "{url}: a GCS state URL names a bucket and a state object ending in `.tfstate`"
        ))
        .with_hint("for example `gs://my-bucket/path/to/default.tfstate` (the gcs backend's `<prefix>/<workspace>.tfstate`); `statectl scan` also takes a prefix ending in `/`"));
    }
    let values = crate::discover::url_values(&[("bucket", bucket), ("prefix", prefix)]);
    Ok((values, workspace.to_owned()))
}

/// For `gs://bucket/` or `gs://bucket/prefix/` (ending in `/`): the bucket and the prefix; `None`
/// for anything else.
pub fn listing(rest: &str) -> Option<(&str, &str)> {
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    (!bucket.is_empty() && (prefix.is_empty() || prefix.ends_with('/'))).then_some((bucket, prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_url_is_a_prefix_and_a_workspace() {
        let (values, workspace) =
            state("gs://b/team/app/dev.tfstate", "b/team/app/dev.tfstate").unwrap();
        assert_eq!(values["bucket"], "b");
        assert_eq!(values["prefix"], "team/app");
        assert_eq!(workspace, "dev");
        let (values, workspace) = state("gs://b/default.tfstate", "b/default.tfstate").unwrap();
        assert_eq!(values["prefix"], "");
        assert_eq!(workspace, "default");
        for bad in ["b", "b/", "b/app/", "b/app/notes.txt", "/x.tfstate"] {
            let error = state(&format!("gs://{bad}"), bad).unwrap_err();
            assert!(
                error.message.ends_with(
                    "a GCS state URL names a bucket and a state object ending in `.tfstate`"
                ),
                "{bad}"
            );
        }
        assert_eq!(listing("b/org/"), Some(("b", "org/")));
        assert_eq!(listing("b"), Some(("b", "")));
        assert_eq!(listing("b/org/x.tfstate"), None);
    }
}
