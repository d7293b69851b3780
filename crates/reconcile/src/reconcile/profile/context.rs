//! One poll of one instance: the profile, the instance's attributes, the endpoint and the environment,
//! and the responses so far. It renders each request into a concrete [`HttpRequest`] (credentials are
//! the sender's to add), records the answers, reads the status from the status request's answer, and
//! turns the answers into a [`Patch`] of the attributes.
//!
//! The poller drives it:
//!
//! ```text
//! let mut context = profile.context(&attributes, &endpoint, &env);
//! for request in &profile.requests {
//!     if !context.runs(request) { continue }
//!     let answer = send(context.render(request)?)?;   // plus auth; gone rules on non-2xx
//!     context.record(request, &answer.body)?;         // 2xx answers only
//! }
//! match context.status() { ... }                      // then context.patch() at the target
//! ```

use std::collections::HashMap;
use std::fmt;

use super::query::select;
use serde_json::Value;

use crate::reconcile::http::HttpRequest;
use crate::reconcile::profile::endpoint::check_base;
use crate::reconcile::profile::template::{Lookup, LookupError, TemplateError};
use crate::reconcile::profile::{
    Endpoint, ListedAs, Patch, Profile, RequestTemplate, Status, When, encode, mapping, path,
};
use crate::state::attr_path::Step;
use statectl_net::Secret;

/// The state of one poll of one instance.
pub struct Context<'a> {
    profile: &'a Profile,
    attributes: &'a Value,
    endpoint: &'a Endpoint,
    env: &'a (dyn Fn(&str) -> Option<String> + Sync),
    responses: HashMap<String, Value>,
    status: Option<Status>,
}

impl fmt::Debug for Context<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Attributes and responses may hold secrets: only names show.
        let mut answered: Vec<&String> = self.responses.keys().collect();
        answered.sort();
        formatter
            .debug_struct("Context")
            .field("profile", &self.profile.type_name)
            .field("answered", &answered)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

/// A request that cannot be built for this instance: a placeholder without a value, a value that
/// cannot stand where it would go.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("profile `{profile}`, request `{request}`: {message}")]
pub struct RenderError {
    pub profile: String,
    pub request: String,
    pub message: String,
}

/// An answer that cannot be used: not JSON, or no status where the profile says it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("profile `{profile}`, response to `{request}`: {message}")]
pub struct ResponseError {
    pub profile: String,
    pub request: String,
    pub message: String,
}

impl<'a> Context<'a> {
    pub(crate) fn new(
        profile: &'a Profile,
        attributes: &'a Value,
        endpoint: &'a Endpoint,
        env: &'a (dyn Fn(&str) -> Option<String> + Sync),
    ) -> Context<'a> {
        Context {
            profile,
            attributes,
            endpoint,
            env,
            responses: HashMap::new(),
            status: None,
        }
    }

    /// Does `request` run in this poll? A `when = "target"` request runs only once the status reached
    /// a target value.
    pub fn runs(&self, request: &RequestTemplate) -> bool {
        match request.when {
            When::Always => true,
            When::Target => self
                .status
                .as_ref()
                .is_some_and(|status| status.class == ListedAs::Target),
        }
    }

    /// The concrete request for this instance. Headers that read the environment go to
    /// `secret_headers`; `Accept: application/json` is added unless the profile sets `Accept`, and a
    /// body gets `Content-Type: application/json` unless the profile sets one.
    pub fn render(&self, request: &RequestTemplate) -> Result<HttpRequest, RenderError> {
        let error = |part: &str, problem: TemplateError| RenderError {
            profile: self.profile.type_name.clone(),
            request: request.name.clone(),
            message: if part.is_empty() {
                problem.to_string()
            } else {
                format!("{part}: {problem}")
            },
        };
        let mut url =
            encode::render_url(&request.url, self).map_err(|problem| error("url", problem))?;
        encode::set_query(&mut url, &request.query, self).map_err(|problem| error("", problem))?;
        let mut headers = Vec::new();
        let mut secret_headers = Vec::new();
        for (name, template) in &request.headers {
            let Some(value) =
                encode::header_value(name, template, self).map_err(|problem| error("", problem))?
            else {
                continue;
            };
            if template.uses_env() {
                secret_headers.push((name.clone(), Secret::new(value)));
            } else {
                headers.push((name.clone(), value));
            }
        }
        let has = |wanted: &str| {
            request
                .headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case(wanted))
        };
        if !has("Accept") {
            headers.push(("Accept".to_owned(), "application/json".to_owned()));
        }
        let body = match &request.body {
            None => None,
            Some(template) => {
                let text = encode::render_json(template, self)
                    .map_err(|problem| error("body", problem))?;
                if !has("Content-Type") {
                    headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
                }
                Some(text.into_bytes())
            }
        };
        Ok(HttpRequest {
            method: request.method.clone(),
            url,
            headers,
            secret_headers,
            body,
        })
    }

    /// Records a successful (2xx) answer to `request`; an empty body is `null`. The status request's
    /// answer sets [`Context::status`].
    pub fn record(&mut self, request: &RequestTemplate, body: &[u8]) -> Result<(), ResponseError> {
        let error = |message: String| ResponseError {
            profile: self.profile.type_name.clone(),
            request: request.name.clone(),
            message,
        };
        let document = if body.iter().all(u8::is_ascii_whitespace) {
            Value::Null
        } else {
            serde_json::from_slice(body)
                .map_err(|problem| error(format!("the body is not JSON: {problem}")))?
        };
        if request.name == self.profile.status.request {
            self.status = Some(
                self.profile
                    .status
                    .read(&document)
                    .map_err(|problem| error(problem.to_string()))?,
            );
        }
        self.responses.insert(request.name.clone(), document);
        Ok(())
    }

    /// The status this poll read, once the status request has answered.
    pub fn status(&self) -> Option<&Status> {
        self.status.as_ref()
    }

    /// A recorded answer, decoded.
    pub fn response(&self, request: &str) -> Option<&Value> {
        self.responses.get(request)
    }

    /// The profile's mappings applied to the instance's attributes, from the answers recorded.
    pub fn patch(&self) -> Patch {
        mapping::apply(&self.profile.mappings, self.attributes, |name| {
            self.responses.get(name)
        })
    }
}

impl Lookup for Context<'_> {
    fn attribute(&self, steps: &[Step]) -> Option<Value> {
        path::get(self.attributes, steps).cloned()
    }

    fn env(&self, name: &str) -> Option<String> {
        (self.env)(name)
    }

    fn variable(&self, name: &str) -> Result<Value, LookupError> {
        let template = self
            .profile
            .variables
            .get(name)
            .ok_or_else(|| LookupError::UnknownVariable(name.to_owned()))?;
        template
            .value(self)
            .map_err(|problem| LookupError::Variable {
                name: name.to_owned(),
                source: Box::new(problem),
            })
    }

    fn endpoint(&self) -> Result<String, LookupError> {
        let url = match self.endpoint {
            Endpoint::Fixed(url) => url.clone(),
            Endpoint::PerInstance(template) => {
                let url = encode::render_url(template, self)
                    .map_err(|problem| LookupError::DefaultUrl(Box::new(problem)))?;
                check_base(&url)?;
                url
            }
            Endpoint::Unused => return Err(LookupError::NoEndpoint),
        };
        Ok(url.as_str().trim_end_matches('/').to_owned())
    }

    fn response(&self, request: &str, path: &str) -> Result<Option<Value>, LookupError> {
        let document = self
            .responses
            .get(request)
            .ok_or_else(|| LookupError::NotAnswered(request.to_owned()))?;
        let found = select(document, path).map_err(|source| LookupError::Query {
            path: path.to_owned(),
            source,
        })?;
        Ok(found.into_iter().next().cloned())
    }
}
