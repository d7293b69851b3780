//! The AWS role options the s3 backend and OpenTofu's `aws_kms` key provider share:
//! `assume_role` and `assume_role_with_web_identity`, read by one parser into what the credential
//! chain is given. The two callers differ only in how much they check ([`Checks`]): a key
//! provider's body is checked as OpenTofu checks it; the s3 backend reads the cache `terraform init`
//! wrote after Terraform validated it, and leaves out what it cannot use. A duration is Go's
//! (`time.ParseDuration`: `1h30m`, `900s`, `1.5h`; Terraform's s3 backend and OpenTofu take the
//! same), read by statectl's one duration parser.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Map, Value};

/// What both blocks give STS's call that assumes the role: the role, the session's name and
/// length, and the policies that narrow it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoleSession {
    pub role_arn: String,
    pub session_name: Option<String>,
    pub duration: Option<Duration>,
    pub policy: Option<String>,
    pub policy_arns: Vec<String>,
}

impl RoleSession {
    /// The session's name: the one given, else `statectl`.
    pub fn name(&self) -> String {
        self.session_name
            .clone()
            .unwrap_or_else(|| "statectl".to_owned())
    }
}

/// The `assume_role` block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssumeRole {
    pub session: RoleSession,
    pub external_id: Option<String>,
    pub tags: Vec<(String, String)>,
}

/// The `assume_role_with_web_identity` block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebIdentity {
    pub session: RoleSession,
    pub token_file: String,
}

/// How much a block is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checks {
    /// As OpenTofu checks a key provider's body: every key known and of its type, a duration
    /// between 15 minutes and 12 hours, IAM policy ARNs; transitive tags and an inline web identity
    /// token refused; `AWS_ROLE_SESSION_NAME` read.
    Strict,
    /// As the s3 backend reads Terraform's validated cache: a value that cannot be used is left out.
    Lenient,
}

/// A role option that cannot be used; `key` is the option's path (`assume_role.duration`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoleOptionError {
    #[error("{key}: {detail}")]
    Invalid { key: String, detail: String },
    #[error("the role_arn of assume_role is required")]
    NoRoleArn,
    /// `inline`: the block gives the token itself, which statectl does not take.
    #[error(
        "assume_role_with_web_identity needs role_arn and web_identity_token_file (or AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE)"
    )]
    NoWebIdentity { inline: bool },
    #[error("assume_role_with_web_identity: statectl does not take the web identity token inline")]
    InlineToken,
}

const ASSUME_ROLE: &str = "assume_role";
const WEB_IDENTITY: &str = "assume_role_with_web_identity";

/// The `assume_role` block.
pub fn assume_role(
    block: &Map<String, Value>,
    checks: Checks,
) -> Result<AssumeRole, RoleOptionError> {
    let b = Block::new(
        ASSUME_ROLE,
        block,
        checks,
        &[
            "role_arn",
            "duration",
            "external_id",
            "policy",
            "policy_arns",
            "session_name",
            "tags",
            "transitive_tag_keys",
        ],
    )?;
    let Some(role_arn) = b.text("role_arn")? else {
        return Err(RoleOptionError::NoRoleArn);
    };
    if checks == Checks::Strict && !b.strings("transitive_tag_keys")?.is_empty() {
        return Err(b.error(
            "transitive_tag_keys",
            "statectl does not support transitive session tags; remove transitive_tag_keys (the role is still assumed with its tags)",
        ));
    }
    // Read in this order, so that of two bad options the same one is named first.
    let tags = b.string_map("tags")?.into_iter().collect();
    let session_name = b.text("session_name")?;
    let external_id = b.text("external_id")?;
    Ok(AssumeRole {
        session: b.session(role_arn, session_name)?,
        external_id,
        tags,
    })
}

/// The `assume_role_with_web_identity` block; its role and token file default to `AWS_ROLE_ARN`
/// and `AWS_WEB_IDENTITY_TOKEN_FILE`, as in Terraform and OpenTofu.
pub fn web_identity(
    block: &Map<String, Value>,
    checks: Checks,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<WebIdentity, RoleOptionError> {
    let b = Block::new(
        WEB_IDENTITY,
        block,
        checks,
        &[
            "role_arn",
            "duration",
            "policy",
            "policy_arns",
            "session_name",
            "web_identity_token",
            "web_identity_token_file",
        ],
    )?;
    let inline = b.text("web_identity_token")?;
    let file = b.text("web_identity_token_file")?;
    if checks == Checks::Strict {
        if inline.is_some() && file.is_some() {
            return Err(RoleOptionError::Invalid {
                key: WEB_IDENTITY.to_owned(),
                detail: "conflicting config attributes: only web_identity_token or web_identity_token_file can be specified, not both".to_owned(),
            });
        }
        if inline.is_some() || (file.is_none() && env("AWS_WEB_IDENTITY_TOKEN").is_some()) {
            return Err(RoleOptionError::InlineToken);
        }
    }
    let token_file = file.or_else(|| env("AWS_WEB_IDENTITY_TOKEN_FILE"));
    let role_arn = b.text("role_arn")?.or_else(|| env("AWS_ROLE_ARN"));
    let (Some(role_arn), Some(token_file)) = (role_arn, token_file) else {
        return Err(RoleOptionError::NoWebIdentity {
            inline: inline.is_some(),
        });
    };
    let session_name = match checks {
        Checks::Strict => b
            .text("session_name")?
            .or_else(|| env("AWS_ROLE_SESSION_NAME")),
        Checks::Lenient => b.text("session_name")?,
    };
    Ok(WebIdentity {
        session: b.session(role_arn, session_name)?,
        token_file,
    })
}

/// A duration as Go's `time.ParseDuration` reads it (`15m`, `1h30m`, `1.5s`); `None` for one it
/// cannot read, an absurd one (`1000...0h`) included.
pub fn go_duration(text: &str) -> Option<Duration> {
    statectl_state::duration::parse_duration(text).ok()
}

/// One block's values, read as `checks` says.
struct Block<'a> {
    at: &'static str,
    values: &'a Map<String, Value>,
    checks: Checks,
}

impl<'a> Block<'a> {
    fn new(
        at: &'static str,
        block: &'a Map<String, Value>,
        checks: Checks,
        known: &[&str],
    ) -> Result<Block<'a>, RoleOptionError> {
        let b = Block {
            at,
            values: block,
            checks,
        };
        if checks == Checks::Strict
            && let Some(name) = block.keys().find(|name| !known.contains(&name.as_str()))
        {
            return Err(b.error(
                name,
                format!("unknown option; {at} takes {}", known.join(", ")),
            ));
        }
        Ok(b)
    }

    fn error(&self, key: &str, detail: impl Into<String>) -> RoleOptionError {
        RoleOptionError::Invalid {
            key: format!("{}.{key}", self.at),
            detail: detail.into(),
        }
    }

    fn strict(&self) -> bool {
        self.checks == Checks::Strict
    }

    /// A string; the empty string is no value.
    fn text(&self, key: &str) -> Result<Option<String>, RoleOptionError> {
        match self.values.get(key) {
            Some(Value::String(text)) if !text.is_empty() => Ok(Some(text.clone())),
            None | Some(Value::Null | Value::String(_)) => Ok(None),
            Some(_) if self.strict() => Err(self.error(key, "expected a string")),
            Some(_) => Ok(None),
        }
    }

    fn strings(&self, key: &str) -> Result<Vec<String>, RoleOptionError> {
        match self.values.get(key) {
            Some(Value::Array(items)) if self.strict() => {
                all_strings(items).ok_or_else(|| self.error(key, "expected a list of strings"))
            }
            Some(Value::Array(items)) => Ok(items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect()),
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(_) if self.strict() => Err(self.error(key, "expected a list of strings")),
            Some(_) => Ok(Vec::new()),
        }
    }

    fn string_map(&self, key: &str) -> Result<BTreeMap<String, String>, RoleOptionError> {
        match self.values.get(key) {
            Some(Value::Object(map)) if self.strict() => map
                .iter()
                .map(|(name, value)| {
                    value
                        .as_str()
                        .map(|value| (name.clone(), value.to_owned()))
                        .ok_or_else(|| self.error(&format!("{key}.{name}"), "expected a string"))
                })
                .collect(),
            Some(Value::Object(map)) => Ok(map
                .iter()
                .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.to_owned())))
                .collect()),
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(_) if self.strict() => Err(self.error(key, "expected a map of strings")),
            Some(_) => Ok(BTreeMap::new()),
        }
    }

    /// The role session of `role_arn` named `session_name`, with the block's `duration`, `policy`
    /// and `policy_arns`.
    fn session(
        &self,
        role_arn: String,
        session_name: Option<String>,
    ) -> Result<RoleSession, RoleOptionError> {
        Ok(RoleSession {
            role_arn,
            session_name,
            duration: self.duration()?,
            policy: self.text("policy")?.map(|policy| policy.trim().to_owned()),
            policy_arns: self.policy_arns()?,
        })
    }

    /// `duration`; checked as OpenTofu checks it: a Go duration between 15 minutes and 12 hours.
    fn duration(&self) -> Result<Option<Duration>, RoleOptionError> {
        let Some(text) = self.text("duration")? else {
            return Ok(None);
        };
        let duration = go_duration(&text);
        if !self.strict() {
            return Ok(duration);
        }
        let Some(duration) = duration else {
            return Err(self.error("duration", format!("invalid assume_role duration {text:?}")));
        };
        if duration < Duration::from_secs(15 * 60) || duration > Duration::from_secs(12 * 3600) {
            return Err(self.error(
                "duration",
                format!("assume_role duration must be between 15m0s and 12h0m0s, had {text}"),
            ));
        }
        Ok(Some(duration))
    }

    /// `policy_arns`; checked as OpenTofu checks them: IAM policy ARNs.
    fn policy_arns(&self) -> Result<Vec<String>, RoleOptionError> {
        let arns = self.strings("policy_arns")?;
        if self.strict() {
            for arn in &arns {
                // arn:partition:service:region:account:resource
                let resource = arn.splitn(6, ':').nth(5);
                if !arn.starts_with("arn:") || !resource.is_some_and(|r| r.starts_with("policy/")) {
                    return Err(self.error(
                        "policy_arns",
                        format!("arn must be a valid IAM Policy ARN, got {arn:?}"),
                    ));
                }
            }
        }
        Ok(arns)
    }
}

/// `items` as strings, when every one is a string: a list option read strictly (the AWS
/// provider's and OpenTofu's `aws_kms` checks refuse a list with anything else in it).
pub fn all_strings(items: &[Value]) -> Option<Vec<String>> {
    items
        .iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn block(value: Value) -> Map<String, Value> {
        let Value::Object(map) = value else {
            panic!("not an object: {value}")
        };
        map
    }

    #[test]
    fn one_block_read_both_ways() {
        let b = block(
            json!({"role_arn": "arn:r", "duration": "1h30m", "tags": {"a": "b", "n": 1},
                             "policy_arns": ["arn:aws:iam::1:policy/p"], "policy": " {} "}),
        );
        let lenient = assume_role(&b, Checks::Lenient).unwrap();
        assert_eq!(lenient.session.duration, Some(Duration::from_secs(5400)));
        assert_eq!(lenient.tags, [("a".to_owned(), "b".to_owned())]);
        assert_eq!(lenient.session.policy.as_deref(), Some("{}"));
        assert_eq!(
            assume_role(&b, Checks::Strict).unwrap_err().to_string(),
            "assume_role.tags.n: expected a string"
        );
    }

    #[test]
    fn of_several_bad_options_the_first_read_is_named() {
        let mut b = block(json!({"role_arn": "r", "tags": {"a": 1}, "external_id": 2,
                                 "duration": "x", "policy_arns": ["p"]}));
        for named in [
            "assume_role.tags.a",
            "assume_role.external_id",
            "assume_role.duration",
            "assume_role.policy_arns",
        ] {
            let error = assume_role(&b, Checks::Strict).unwrap_err().to_string();
            assert!(error.starts_with(&format!("{named}: ")), "{named}: {error}");
            let key = named.split('.').nth(1).unwrap();
            b.remove(key);
        }
        assert!(assume_role(&b, Checks::Strict).is_ok());
    }

    #[test]
    fn durations_are_gos_and_strictly_between_15_minutes_and_12_hours() {
        for (text, lenient, strict) in [
            ("15m", Some(900), Ok(())),
            ("0.5h", Some(1800), Ok(())),
            ("12h0m0s", Some(43_200), Ok(())),
            ("1m", Some(60), Err("between 15m0s and 12h0m0s")),
            ("15", None, Err("invalid assume_role duration")),
            ("x", None, Err("invalid assume_role duration")),
        ] {
            let b = block(json!({"role_arn": "r", "duration": text}));
            let read = assume_role(&b, Checks::Lenient).unwrap();
            assert_eq!(
                read.session.duration,
                lenient.map(Duration::from_secs),
                "{text}"
            );
            match (assume_role(&b, Checks::Strict), strict) {
                (Ok(_), Ok(())) => {}
                (Err(error), Err(part)) => assert!(error.to_string().contains(part), "{error}"),
                (other, _) => panic!("{text}: {other:?}"),
            }
        }
        assert_eq!(go_duration(&format!("1{}h", "0".repeat(400))), None);
    }

    #[test]
    fn web_identity_takes_its_role_and_file_from_the_environment() {
        let env = |name: &str| match name {
            "AWS_ROLE_ARN" => Some("arn:env".to_owned()),
            "AWS_WEB_IDENTITY_TOKEN_FILE" => Some("/t".to_owned()),
            "AWS_ROLE_SESSION_NAME" => Some("ci".to_owned()),
            _ => None,
        };
        let read = web_identity(&block(json!({})), Checks::Strict, &env).unwrap();
        assert_eq!(
            (read.session.role_arn.as_str(), read.token_file.as_str()),
            ("arn:env", "/t")
        );
        assert_eq!(read.session.session_name.as_deref(), Some("ci"));
        let lenient = web_identity(&block(json!({})), Checks::Lenient, &env).unwrap();
        assert_eq!(lenient.session.session_name, None);
        let none = |_: &str| None;
        assert_eq!(
            web_identity(
                &block(json!({"web_identity_token": "eyJ"})),
                Checks::Lenient,
                &none
            ),
            Err(RoleOptionError::NoWebIdentity { inline: true })
        );
        assert_eq!(
            web_identity(
                &block(json!({"web_identity_token": "eyJ"})),
                Checks::Strict,
                &none
            ),
            Err(RoleOptionError::InlineToken)
        );
    }
}
