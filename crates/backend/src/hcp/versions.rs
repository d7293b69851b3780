//! A new state version as Terraform 1.15 creates one: the serial, the hex MD5 of the bytes, the
//! lineage and the outputs (`json-state-outputs`), then the bytes uploaded to the version's
//! `hosted-state-upload-url` without the token; inline, base64 in `state`, for a server without
//! that flow. Inside an HCP Terraform run (`TFE_RUN_ID`) the version is tied to the run.

use base64::Engine as _;
use md5::Digest as _;
use serde_json::{Value, json};
use statectl_state::state::store::StoreError;

use super::HcpState;
use super::client::{Answer, Call};
use crate::config;

impl HcpState {
    /// Creates the state version for `bytes`; with `inline`, the bytes go along base64.
    pub(super) fn create_version(&self, bytes: &[u8], inline: bool) -> Result<Answer, StoreError> {
        let meta: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
        let serial = meta["serial"].as_u64().ok_or_else(|| {
            StoreError::new(format!(
                "{}: cannot write the state: it has no `serial`, which a state version needs",
                self.location
            ))
        })?;
        let base64 = base64::engine::general_purpose::STANDARD;
        let mut attributes = json!({
            "serial": serial,
            "md5": format!("{:x}", md5::Md5::digest(bytes)),
            "force": false,
            "json-state-outputs": base64.encode(outputs(&meta).to_string()),
        });
        if let Some(lineage) = meta["lineage"]
            .as_str()
            .filter(|lineage| !lineage.is_empty())
        {
            attributes["lineage"] = json!(lineage);
        }
        if inline {
            attributes["state"] = json!(base64.encode(bytes));
        }
        if let Some(run) = config::env("TFE_RUN_ID") {
            // Inside a run, Terraform ties the state to it.
            let body = json!({"data": {"type": "state-versions", "attributes": attributes,
                "relationships": {"run": {"data": {"type": "runs", "id": run}}}}});
            return self.post_version(&body);
        }
        self.post_version(&json!({"data": {"type": "state-versions", "attributes": attributes}}))
    }

    fn post_version(&self, body: &Value) -> Result<Answer, StoreError> {
        self.api_call(
            "write the state",
            reqwest::Method::POST,
            &self.workspace_path("/state-versions"),
            Some(body),
        )
    }

    /// Sends `bytes` to the state version's upload URL, as go-tfe does: no token, octet-stream.
    pub(super) fn upload(&self, url: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let doing = "upload the state";
        let url = self.api_url(doing, url)?;
        let call = Call {
            method: reqwest::Method::PUT,
            url: &url,
            body: Some((
                bytes::Bytes::copy_from_slice(bytes),
                "application/octet-stream",
            )),
            accept: "application/json, */*",
            authorized: false,
        };
        let answer = self
            .client
            .send(&call)
            .map_err(|failure| self.failed(doing, &failure))?;
        if (200..300).contains(&answer.status) {
            Ok(())
        } else {
            Err(self.refused(doing, &answer))
        }
    }
}

/// The root outputs as `json-state-outputs` carries them (name: sensitive, type, value).
fn outputs(state: &Value) -> Value {
    let mut outputs = serde_json::Map::new();
    for (name, output) in state["outputs"].as_object().into_iter().flatten() {
        outputs.insert(
            name.clone(),
            json!({
                "sensitive": output["sensitive"].as_bool().unwrap_or(false),
                "type": output["type"],
                "value": output["value"],
            }),
        );
    }
    Value::Object(outputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_carry_type_value_and_sensitivity() {
        let state: Value = serde_json::from_str(
            r#"{"outputs": {"ip": {"value": "10.0.0.1", "type": "string"},
                            "pw": {"value": "x", "type": "string", "sensitive": true}}}"#,
        )
        .unwrap();
        assert_eq!(
            outputs(&state),
            json!({"ip": {"sensitive": false, "type": "string", "value": "10.0.0.1"},
                   "pw": {"sensitive": true, "type": "string", "value": "x"}})
        );
        assert_eq!(outputs(&Value::Null), json!({}));
    }
}
