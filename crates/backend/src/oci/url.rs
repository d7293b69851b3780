//! The `oci://` URLs: `oci://namespace/bucket/object/key` names one state (the namespace, the bucket
//! and the state object), `oci://namespace/bucket/prefix/` the states below a prefix, for `scan`.

use serde_json::{Map, Value};
use statectl_state::state::store::StoreError;

use crate::config::BackendConfig;
use crate::discover::{self, Overrides};

/// `oci://namespace/bucket/object/key`: the namespace, the bucket and the state object.
pub(crate) fn values(url: &str, rest: &str) -> Result<Map<String, Value>, StoreError> {
    let mut parts = rest.splitn(3, '/');
    let (Some(namespace), Some(bucket), Some(key)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(url_error(url));
    };
    if namespace.is_empty() || bucket.is_empty() || key.is_empty() || key.ends_with('/') {
        return Err(url_error(url));
    }
    Ok(discover::url_values(&[
        ("namespace", namespace),
        ("bucket", bucket),
        ("key", key),
    ]))
}

fn url_error(url: &str) -> StoreError {
    StoreError::new(format!(
        "{url}: an OCI state URL names a namespace, a bucket and an object"
    ))
    .with_hint("for example `oci://my-namespace/my-bucket/path/to/terraform.tfstate`; `statectl scan` also takes a prefix ending in `/`")
}

/// `oci://namespace/bucket/` or `oci://namespace/bucket/prefix/`, for `scan`.
pub(crate) fn listing(
    url: &str,
    rest: &str,
    overrides: &Overrides,
) -> Result<Option<(BackendConfig, String)>, StoreError> {
    let Some((namespace_bucket, prefix)) = rest.split_once('/').and_then(|(namespace, after)| {
        let (bucket, prefix) = after.split_once('/')?;
        Some((format!("{namespace}/{bucket}"), prefix))
    }) else {
        return Ok(None);
    };
    if !(prefix.is_empty() || prefix.ends_with('/')) {
        return Ok(None);
    }
    let Some(mut config) = discover::from_url(
        &format!("oci://{namespace_bucket}/{prefix}terraform.tfstate"),
        overrides,
    )?
    else {
        return Ok(None);
    };
    config.origin = discover::redact(url);
    Ok(Some((config, prefix.to_owned())))
}
