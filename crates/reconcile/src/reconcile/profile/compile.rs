//! Turning a profile file's tables into a checked [`Profile`]: every template parsed, every JSONPath
//! compiled, every duration read, every name resolved (a request reads only earlier responses, the
//! status names a request that always runs), so that a mistake is reported at load with its line and
//! column instead of surfacing as a failed request halfway through a refresh.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::Range;

use jsonpath_rust::parser::errors::JsonPathError;
use jsonpath_rust::parser::parse_json_path;
use toml::Spanned;

use crate::json::LineColumn;
use crate::reconcile::profile::format::{
    AuthFile, GoneRuleFile, LimitsFile, PollFile, ProfileFile, RequestFile, StatusFile,
};
use crate::reconcile::profile::template::{Ref, Template, is_env_name, is_name, one_line};
use crate::reconcile::profile::{
    Auth, GoneAction, GoneRule, GoneRules, Limits, Mapping, PollSettings, Profile, ProfileError,
    RequestTemplate, StatusRule, When, encode, parse_duration, parse_jitter, path,
};

/// The text a profile came from, to turn byte spans into `file:line:column`.
pub(crate) struct ProfileText<'t> {
    pub origin: &'t str,
    pub text: &'t str,
}

impl ProfileText<'_> {
    pub(super) fn error(&self, span: Range<usize>, message: impl fmt::Display) -> ProfileError {
        let place = LineColumn::of(self.text.as_bytes(), span.start);
        ProfileError::new(format!("{}:{place}: {message}", self.origin))
    }

    pub(super) fn toml(&self, error: &toml::de::Error) -> ProfileError {
        let place = error
            .span()
            .map(|span| format!(":{}", LineColumn::of(self.text.as_bytes(), span.start)))
            .unwrap_or_default();
        ProfileError::new(format!(
            "{}{place}: invalid profile file: {}",
            self.origin,
            one_line(error.message())
        ))
        .with_hint("`statectl refresh --profiles-format` prints the profile format")
    }
}

/// Methods a refresh may use: it reads. POST stays for the APIs whose reads are POSTs (AWS's JSON
/// protocols, GraphQL); PUT, PATCH and DELETE would change the remote object.
const METHODS: [&str; 3] = ["GET", "HEAD", "POST"];

/// Headers the HTTP client owns.
const RESERVED_HEADERS: [&str; 4] = ["host", "content-length", "transfer-encoding", "connection"];

/// Adds the file's `[variables]` to `variables` (an extended profile's, or none): each a template
/// that reads instance attributes and environment variables only.
fn compile_variables(
    file: &ProfileFile,
    source: &ProfileText<'_>,
    variables: &mut BTreeMap<String, Template>,
) -> Result<(), ProfileError> {
    for (name, value) in &file.variables {
        if !is_name(name.get_ref()) {
            return Err(source.error(
                name.span(),
                format!(
                    "`{}` is not a variable name (letters, digits, `_` and `-`)",
                    name.get_ref()
                ),
            ));
        }
        let template = parse(value, source)?;
        if let Some((slot, _)) = template
            .refs()
            .find(|(_, reference)| !matches!(reference, Ref::Attr { .. } | Ref::Env(_)))
        {
            return Err(source.error(
                value.span(),
                format!(
                    "variable `{}`: `{}`: a variable reads instance attributes and environment variables only",
                    name.get_ref(),
                    slot.text
                ),
            ));
        }
        variables.insert(name.get_ref().clone(), template);
    }
    Ok(())
}

/// Checks `file` and builds the profile. `parent` finds the profiles `extends` may name.
pub(crate) fn profile<'p>(
    file: &ProfileFile,
    source: &ProfileText<'_>,
    parent: &dyn Fn(&str) -> Option<&'p Profile>,
) -> Result<Profile, ProfileError> {
    let type_name = file.type_name.get_ref().trim().to_owned();
    if !is_name(&type_name) {
        return Err(source.error(
            file.type_name.span(),
            format!("`{type_name}` is not a resource type name"),
        ));
    }
    let mut profile = match &file.extends {
        Some(extends) => {
            let Some(base) = parent(extends.get_ref()) else {
                return Err(source.error(
                    extends.span(),
                    format!(
                        "`extends = \"{}\"`: no such profile (a built-in one, or one earlier in this file)",
                        extends.get_ref()
                    ),
                ));
            };
            if !file.request.is_empty()
                || file.status.is_some()
                || file.gone.is_some()
                || !file.map.is_empty()
            {
                return Err(source.error(
                    extends.span(),
                    "a profile that `extends` another reuses its requests, status, gone rules and mappings; leave them out, or write a whole profile without `extends`",
                ));
            }
            Profile {
                type_name: type_name.clone(),
                description: file
                    .description
                    .clone()
                    .or_else(|| base.description.clone()),
                origin: source.origin.to_owned(),
                ..base.clone()
            }
        }
        None => fresh(file, source, type_name.clone())?,
    };

    compile_variables(file, source, &mut profile.variables)?;

    if let Some(endpoint) = &file.endpoint {
        if !is_name(endpoint.get_ref()) {
            return Err(source.error(
                endpoint.span(),
                format!(
                    "`{}` is not an endpoint name (letters, digits, `_` and `-`)",
                    endpoint.get_ref()
                ),
            ));
        }
        profile.endpoint = Some(endpoint.get_ref().clone());
    }
    if let Some(default_url) = &file.default_url {
        let template = parse(default_url, source)?;
        encode::check_url(&template, false).map_err(|problem| {
            source.error(default_url.span(), format!("default_url: {problem}"))
        })?;
        let variables: BTreeSet<String> = profile.variables.keys().cloned().collect();
        let scope = Scope {
            variables: &variables,
            endpoint: false,
            names: &[],
            earlier: &[],
            when: When::Always,
            responses: false,
        };
        scope.check(&template, default_url.span(), source)?;
        if profile.endpoint.is_none() {
            return Err(source.error(
                default_url.span(),
                "`default_url` needs an `endpoint` name, which `--endpoint NAME=URL` overrides",
            ));
        }
        profile.default_url = Some(template);
    }
    // A whole profile compiled its auth with its requests (their headers must not clash with it).
    if let Some(auth) = file.auth.as_ref().filter(|_| file.extends.is_some()) {
        profile.auth = compile_auth(auth, source)?;
        for request in &profile.requests {
            for (name, _) in &request.headers {
                check_header_name(name, &profile.auth)
                    .map_err(|problem| source.error(auth.span(), problem))?;
            }
        }
    }
    if let Some(poll) = &file.poll {
        profile.poll = compile_poll(poll, profile.poll.clone(), source)?;
    }
    if let Some(limits) = &file.limits {
        profile.limits = compile_limits(limits, profile.limits.clone(), source)?;
    }
    Ok(profile)
}

/// A profile without `extends`: requests, status, gone rules and mappings come from the file.
fn fresh(
    file: &ProfileFile,
    source: &ProfileText<'_>,
    type_name: String,
) -> Result<Profile, ProfileError> {
    let Some(status_file) = &file.status else {
        return Err(source.error(
            file.type_name.span(),
            format!("profile `{type_name}` has no `[profile.status]`: which response value is the status?"),
        ));
    };
    if file.request.is_empty() {
        return Err(source.error(
            file.type_name.span(),
            format!("profile `{type_name}` has no `[[profile.request]]`"),
        ));
    }
    // Variables and the auth scheme are needed to check requests; `profile` sets them properly after.
    let mut variables: BTreeSet<String> = BTreeSet::new();
    variables.extend(file.variables.keys().map(|name| name.get_ref().clone()));
    let auth = file
        .auth
        .as_ref()
        .map(|auth| compile_auth(auth, source))
        .transpose()?
        .unwrap_or(Auth::None);
    let endpoint = file.endpoint.is_some();
    let names: Vec<String> = file
        .request
        .iter()
        .map(|request| request.get_ref().name.get_ref().clone())
        .collect();
    let status_request = status_file.get_ref().request.get_ref().clone();
    if !names.contains(&status_request) {
        return Err(source.error(
            status_file.get_ref().request.span(),
            format!(
                "the status reads unknown request `{status_request}`; requests: {}",
                listing(&names)
            ),
        ));
    }
    let mut requests: Vec<RequestTemplate> = Vec::new();
    for (index, request) in file.request.iter().enumerate() {
        let scope = Scope {
            variables: &variables,
            endpoint,
            names: &names,
            earlier: &requests,
            when: When::Always,
            responses: true,
        };
        requests.push(compile_request(
            request,
            index,
            &scope,
            &auth,
            &status_request,
            source,
        )?);
    }
    let status = compile_status(status_file, source)?;
    let gone = compile_gone(file.gone.as_ref(), source)?;
    let mut mappings: Vec<Mapping> = Vec::new();
    for map in &file.map {
        let request = map.request.get_ref();
        if !names.contains(request) {
            return Err(source.error(
                map.request.span(),
                format!(
                    "mapping from unknown request `{request}`; requests: {}",
                    listing(&names)
                ),
            ));
        }
        check_jsonpath(map.from.get_ref())
            .map_err(|problem| source.error(map.from.span(), problem))?;
        let steps = path::parse(map.to.get_ref())
            .map_err(|problem| source.error(map.to.span(), problem))?;
        let to = path::display(&steps);
        if mappings.iter().any(|mapping| mapping.to == to) {
            return Err(source.error(map.to.span(), format!("two mappings write `{to}`")));
        }
        mappings.push(Mapping {
            request: request.clone(),
            from: map.from.get_ref().trim().to_owned(),
            to,
            steps,
        });
    }
    Ok(Profile {
        type_name,
        description: file.description.clone(),
        origin: source.origin.to_owned(),
        endpoint: None,
        default_url: None,
        auth,
        variables: BTreeMap::new(),
        requests,
        status,
        gone,
        mappings,
        poll: PollSettings::default(),
        limits: Limits::default(),
    })
}

/// What a template may refer to where it stands.
#[derive(Debug, Clone, Copy)]
struct Scope<'s> {
    variables: &'s BTreeSet<String>,
    /// The profile names an endpoint.
    endpoint: bool,
    /// Every request's name, for "comes later" messages.
    names: &'s [String],
    /// The requests before this one.
    earlier: &'s [RequestTemplate],
    when: When,
    responses: bool,
}

impl Scope<'_> {
    fn check(
        &self,
        template: &Template,
        span: Range<usize>,
        source: &ProfileText<'_>,
    ) -> Result<(), ProfileError> {
        for (slot, reference) in template.refs() {
            let problem = match reference {
                Ref::Var(name) if !self.variables.contains(name) => Some(format!(
                    "`{}`: no variable `{name}`; variables: {}",
                    slot.text,
                    listing(self.variables.iter())
                )),
                Ref::Endpoint if !self.endpoint => Some(format!(
                    "`{}` needs the profile's `endpoint` name (which `--endpoint NAME=URL` overrides)",
                    slot.text
                )),
                Ref::Response { .. } if !self.responses => {
                    Some(format!("`{}`: no response can be read here", slot.text))
                }
                Ref::Response { request, .. } => self.response_problem(&slot.text, request),
                _ => None,
            };
            if let Some(problem) = problem {
                return Err(source.error(span, problem));
            }
        }
        Ok(())
    }

    fn response_problem(&self, slot: &str, request: &str) -> Option<String> {
        match self.earlier.iter().find(|earlier| earlier.name == request) {
            Some(earlier) if earlier.when == When::Target && self.when == When::Always => {
                Some(format!(
                    "`{slot}`: request `{request}` runs only once the status reached a target, and this one always runs; give this one `when = \"target\"`"
                ))
            }
            Some(_) => None,
            None if self.names.iter().any(|name| name == request) => Some(format!(
                "`{slot}`: request `{request}` comes later; a template reads only earlier responses"
            )),
            None => Some(format!(
                "`{slot}`: no request named `{request}`; requests: {}",
                listing(self.names)
            )),
        }
    }
}

/// A request's `when`: `always` (the default) or `target`, which only a request after the status one,
/// and not the status one itself, may wait for.
fn compile_when(
    spanned: &Spanned<RequestFile>,
    name: &str,
    scope: &Scope<'_>,
    status_request: &str,
    source: &ProfileText<'_>,
) -> Result<When, ProfileError> {
    let request = spanned.get_ref();
    let when = match request.when.as_ref().map(|when| when.get_ref().as_str()) {
        None | Some("always") => When::Always,
        Some("target") => When::Target,
        Some(other) => {
            return Err(source.error(
                request.when.as_ref().map_or(spanned.span(), Spanned::span),
                format!("`when = \"{other}\"`: write `always` or `target`"),
            ));
        }
    };
    if when == When::Target && name == status_request {
        return Err(source.error(
            spanned.span(),
            format!("request `{name}` reads the status, so it must always run"),
        ));
    }
    if when == When::Target
        && !scope
            .earlier
            .iter()
            .any(|earlier| earlier.name == status_request)
    {
        return Err(source.error(
            spanned.span(),
            format!("request `{name}` waits for the status (`when = \"target\"`), so it must come after the status request `{status_request}`"),
        ));
    }
    Ok(when)
}

fn compile_request(
    spanned: &Spanned<RequestFile>,
    index: usize,
    scope: &Scope<'_>,
    auth: &Auth,
    status_request: &str,
    source: &ProfileText<'_>,
) -> Result<RequestTemplate, ProfileError> {
    let request = spanned.get_ref();
    let name = request.name.get_ref().trim().to_owned();
    if !is_name(&name) {
        return Err(source.error(
            request.name.span(),
            format!("`{name}` is not a request name (letters, digits, `_` and `-`)"),
        ));
    }
    if scope.names[..index].contains(&name) {
        return Err(source.error(
            request.name.span(),
            format!("a second request named `{name}`"),
        ));
    }
    let when = compile_when(spanned, &name, scope, status_request, source)?;
    let scope = Scope { when, ..*scope };
    let method_text = request.method.as_ref().map_or_else(
        || "GET".to_owned(),
        |method| method.get_ref().trim().to_ascii_uppercase(),
    );
    let method_span = request
        .method
        .as_ref()
        .map_or(spanned.span(), Spanned::span);
    if !METHODS.contains(&method_text.as_str()) {
        return Err(source.error(
            method_span,
            format!(
                "method `{method_text}`: a refresh only reads, so a profile sends GET, HEAD or POST"
            ),
        ));
    }
    let method = reqwest::Method::from_bytes(method_text.as_bytes()).expect("one of METHODS");

    let url = parse(&request.url, source)?;
    encode::check_url(&url, true)
        .map_err(|problem| source.error(request.url.span(), format!("url: {problem}")))?;
    scope.check(&url, request.url.span(), source)?;

    let mut query = Vec::new();
    for (key, value) in &request.query {
        if key.get_ref().is_empty() {
            return Err(source.error(key.span(), "an empty query parameter name"));
        }
        let template = parse(value, source)?;
        scope.check(&template, value.span(), source)?;
        refuse_endpoint(&template, value.span(), source)?;
        query.push((key.get_ref().clone(), template));
    }
    let mut headers = Vec::new();
    for (key, value) in &request.headers {
        check_header_name(key.get_ref(), auth)
            .map_err(|problem| source.error(key.span(), problem))?;
        let template = parse(value, source)?;
        scope.check(&template, value.span(), source)?;
        refuse_endpoint(&template, value.span(), source)?;
        headers.push((key.get_ref().clone(), template));
    }
    let body = match &request.body {
        None => None,
        Some(_) if method != reqwest::Method::POST => {
            return Err(source.error(
                request.body.as_ref().map_or(spanned.span(), Spanned::span),
                format!("a {method} request has no body; only POST sends one"),
            ));
        }
        Some(body) => {
            let template = parse(body, source)?;
            scope.check(&template, body.span(), source)?;
            refuse_endpoint(&template, body.span(), source)?;
            encode::check_json(&template).map_err(|problem| source.error(body.span(), problem))?;
            Some(template)
        }
    };
    Ok(RequestTemplate {
        name,
        method,
        url,
        query,
        headers,
        body,
        when,
    })
}

fn refuse_endpoint(
    template: &Template,
    span: Range<usize>,
    source: &ProfileText<'_>,
) -> Result<(), ProfileError> {
    match template
        .refs()
        .find(|(_, reference)| **reference == Ref::Endpoint)
    {
        Some((slot, _)) => Err(source.error(
            span,
            format!("`{}` belongs at the start of a `url` only", slot.text),
        )),
        None => Ok(()),
    }
}

/// A header name or a JSONPath that a profile field cannot take; the caller adds the place.
#[derive(Debug, thiserror::Error)]
enum FieldError {
    #[error("`{0}` is not an HTTP header name")]
    HeaderName(String),
    #[error("header `{0}` is set by the HTTP client")]
    ReservedHeader(String),
    #[error("header `{name}` is set by the `{scheme}` auth; credentials never go in `headers`")]
    AuthHeader { name: String, scheme: &'static str },
    #[error("`{0}` is not a JSONPath: it starts at `$`, e.g. `$.lifecycleState`")]
    NotJsonPath(String),
    /// jsonpath-rust's reason, on one line.
    #[error("invalid JSONPath `{path}`: {}", one_line(&source.to_string()))]
    JsonPath {
        path: String,
        #[source]
        source: JsonPathError,
    },
}

fn check_header_name(name: &str, auth: &Auth) -> Result<(), FieldError> {
    let token = !name.is_empty()
        && name.chars().all(|character| {
            character.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(character)
        });
    if !token {
        return Err(FieldError::HeaderName(name.to_owned()));
    }
    if RESERVED_HEADERS
        .iter()
        .any(|reserved| reserved.eq_ignore_ascii_case(name))
    {
        return Err(FieldError::ReservedHeader(name.to_owned()));
    }
    if let Some(owned) = auth.header()
        && owned.eq_ignore_ascii_case(name)
    {
        return Err(FieldError::AuthHeader {
            name: name.to_owned(),
            scheme: auth.scheme(),
        });
    }
    Ok(())
}

/// The status rule; `fresh` has already checked that its request exists.
fn compile_status(
    spanned: &Spanned<StatusFile>,
    source: &ProfileText<'_>,
) -> Result<StatusRule, ProfileError> {
    let status = spanned.get_ref();
    let request = status.request.get_ref();
    check_jsonpath(status.path.get_ref())
        .map_err(|problem| source.error(status.path.span(), problem))?;
    if let Some(message) = &status.message {
        check_jsonpath(message.get_ref())
            .map_err(|problem| source.error(message.span(), problem))?;
    }
    if status.pending.is_empty() && status.target.is_empty() {
        return Err(source.error(
            spanned.span(),
            "the status lists neither `pending` nor `target` values, so no answer could ever mean done or not yet",
        ));
    }
    let lists = [
        ("pending", &status.pending),
        ("target", &status.target),
        ("failed", &status.failed),
        ("gone", &status.gone),
    ];
    for (index, (name, values)) in lists.iter().enumerate() {
        for (other, others) in &lists[index + 1..] {
            if let Some(value) = values
                .iter()
                .find(|value| crate::state::attr_path::listed(others, value))
            {
                return Err(source.error(
                    spanned.span(),
                    format!("status value `{value}` is both `{name}` and `{other}`"),
                ));
            }
        }
    }
    Ok(StatusRule {
        request: request.clone(),
        path: status.path.get_ref().trim().to_owned(),
        pending: status.pending.clone(),
        target: status.target.clone(),
        failed: status.failed.clone(),
        gone: status.gone.clone(),
        message: status
            .message
            .as_ref()
            .map(|message| message.get_ref().trim().to_owned()),
    })
}

fn compile_gone(
    file: Option<&BTreeMap<Spanned<String>, Spanned<GoneRuleFile>>>,
    source: &ProfileText<'_>,
) -> Result<GoneRules, ProfileError> {
    let mut rules = GoneRules::default();
    for (code, rule) in file.into_iter().flatten() {
        let number = code
            .get_ref()
            .parse::<u16>()
            .ok()
            .filter(|number| (400..=599).contains(number))
            .ok_or_else(|| {
                source.error(
                    code.span(),
                    format!(
                        "`{}` is not an HTTP error status (400 to 599)",
                        code.get_ref()
                    ),
                )
            })?;
        let file = rule.get_ref();
        let action = |value: &Option<Spanned<String>>| -> Result<Option<GoneAction>, ProfileError> {
            value
                .as_ref()
                .map(|value| {
                    GoneAction::parse(value.get_ref().trim()).ok_or_else(|| {
                        source.error(
                            value.span(),
                            format!("`{}`: write `gone`, `retry` or `error`", value.get_ref()),
                        )
                    })
                })
                .transpose()
        };
        let compiled = GoneRule {
            create: action(&file.create)?,
            update: action(&file.update)?,
            delete: action(&file.delete)?,
            read: action(&file.read)?,
            default: action(&file.default)?,
        };
        if compiled == GoneRule::default() {
            return Err(source.error(
                rule.span(),
                format!("the rule for {number} names no action; give `default` or an operation (`create`, `update`, `delete`, `read`)"),
            ));
        }
        rules.codes.insert(number, compiled);
    }
    Ok(rules)
}

fn compile_auth(
    spanned: &Spanned<AuthFile>,
    source: &ProfileText<'_>,
) -> Result<Auth, ProfileError> {
    let auth = spanned.get_ref();
    let scheme = auth.scheme.get_ref().trim();
    if !Auth::SCHEMES.contains(&scheme) {
        return Err(source.error(
            auth.scheme.span(),
            format!(
                "unknown auth scheme `{scheme}`; schemes: {}",
                listing(Auth::SCHEMES)
            ),
        ));
    }
    let (required, optional) = Auth::settings(scheme);
    let given = auth.given();
    for (name, value) in &given {
        if !required.contains(name) && !optional.contains(name) {
            return Err(source.error(
                value.span(),
                format!("`{name}` does not apply to `{scheme}` auth"),
            ));
        }
        let valid = match *name {
            "token_env" | "username_env" | "password_env" | "value_env" => {
                is_env_name(value.get_ref())
            }
            "header" => check_header_name(value.get_ref(), &Auth::None).is_ok(),
            _ => !value.get_ref().trim().is_empty(),
        };
        if !valid {
            return Err(source.error(
                value.span(),
                format!("`{name} = \"{}\"` is not valid here", value.get_ref()),
            ));
        }
    }
    let get = |wanted: &str| {
        given
            .iter()
            .find(|(name, _)| *name == wanted)
            .map(|(_, value)| value.get_ref().trim().to_owned())
    };
    if let Some(missing) = required.iter().find(|name| get(name).is_none()) {
        return Err(source.error(spanned.span(), format!("`{scheme}` auth needs `{missing}`")));
    }
    let need = |name: &str| get(name).expect("required settings were checked");
    Ok(match scheme {
        "none" => Auth::None,
        "bearer" => Auth::Bearer {
            token_env: need("token_env"),
        },
        "basic" => Auth::Basic {
            username_env: need("username_env"),
            password_env: need("password_env"),
        },
        "header" => Auth::Header {
            name: need("header"),
            value_env: need("value_env"),
        },
        _ => Auth::OciSignature {
            config_file: get("config_file"),
            config_profile: get("config_profile"),
        },
    })
}

fn compile_poll(
    file: &PollFile,
    mut poll: PollSettings,
    source: &ProfileText<'_>,
) -> Result<PollSettings, ProfileError> {
    let duration = |value: &Spanned<String>| {
        parse_duration(value.get_ref()).map_err(|problem| source.error(value.span(), problem))
    };
    let positive = |value: &Spanned<String>, name: &str| {
        let parsed = duration(value)?;
        if parsed.is_zero() {
            return Err(source.error(value.span(), format!("`{name}` must be more than zero")));
        }
        Ok(parsed)
    };
    if let Some(value) = &file.initial_delay {
        poll.initial_delay = duration(value)?;
    }
    if let Some(value) = &file.interval {
        poll.interval = positive(value, "interval")?;
    }
    if let Some(value) = &file.max_interval {
        poll.max_interval = positive(value, "max_interval")?;
    }
    if let Some(value) = &file.timeout {
        poll.timeout = positive(value, "timeout")?;
    }
    if let Some(value) = &file.max_polling_duration {
        poll.max_polling_duration = Some(positive(value, "max_polling_duration")?);
    }
    if let Some(value) = &file.jitter {
        poll.jitter =
            parse_jitter(value.get_ref()).map_err(|problem| source.error(value.span(), problem))?;
    }
    if let Some(value) = &file.multiplier {
        let multiplier = *value.get_ref();
        if !(1.0..=10.0).contains(&multiplier) {
            return Err(source.error(
                value.span(),
                "`multiplier` is from 1 (a fixed interval) to 10",
            ));
        }
        poll.multiplier = multiplier;
    }
    if let Some(value) = &file.consecutive_targets {
        if *value.get_ref() == 0 {
            return Err(source.error(value.span(), "`consecutive_targets` is at least 1"));
        }
        poll.consecutive_targets = *value.get_ref();
    }
    if let Some(value) = &file.not_found_checks {
        poll.not_found_checks = *value.get_ref();
    }
    if let Some(value) = file.retry_after {
        poll.retry_after = value;
    }
    if poll.max_interval < poll.interval {
        let span = file
            .max_interval
            .as_ref()
            .or(file.interval.as_ref())
            .map(Spanned::span)
            .unwrap_or_default();
        return Err(source.error(span, "`max_interval` is shorter than `interval`"));
    }
    Ok(poll)
}

fn compile_limits(
    file: &LimitsFile,
    mut limits: Limits,
    source: &ProfileText<'_>,
) -> Result<Limits, ProfileError> {
    let count = |value: &Spanned<usize>, name: &str| {
        if *value.get_ref() == 0 {
            Err(source.error(value.span(), format!("`{name}` is at least 1")))
        } else {
            Ok(*value.get_ref())
        }
    };
    if let Some(value) = &file.concurrency {
        limits.concurrency = count(value, "concurrency")?;
    }
    if let Some(value) = &file.per_host {
        limits.per_host = count(value, "per_host")?;
    }
    if let Some(value) = &file.rate_per_second {
        let rate = *value.get_ref();
        if !(rate.is_finite() && rate > 0.0) {
            return Err(source.error(value.span(), "`rate_per_second` is a number above zero"));
        }
        limits.rate_per_second = Some(rate);
    }
    Ok(limits)
}

fn parse(value: &Spanned<String>, source: &ProfileText<'_>) -> Result<Template, ProfileError> {
    Template::parse(value.get_ref()).map_err(|problem| source.error(value.span(), problem))
}

/// An RFC 9535 JSONPath, compiled once here so a typo fails at load.
fn check_jsonpath(text: &str) -> Result<(), FieldError> {
    let text = text.trim();
    if !text.starts_with('$') {
        return Err(FieldError::NotJsonPath(text.to_owned()));
    }
    parse_json_path(text)
        .map(|_| ())
        .map_err(|source| FieldError::JsonPath {
            path: text.to_owned(),
            source,
        })
}

fn listing<T: AsRef<str>>(names: impl IntoIterator<Item = T>) -> String {
    let names: Vec<String> = names
        .into_iter()
        .map(|name| format!("`{}`", name.as_ref()))
        .collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use crate::reconcile::profile::{Profiles, When};

    /// A small valid profile; each test breaks one thing in it.
    const VALID: &str = r#"
[[profile]]
type = "example_widget"
endpoint = "example"
default_url = "https://api.example.com"
variables = { region = "{attr.region|env.EXAMPLE_REGION}" }

[profile.auth]
scheme = "bearer"
token_env = "EXAMPLE_TOKEN"

[[profile.request]]
name = "widget"
url = "{endpoint}/v1/widgets/{attr.id}"
query = { region = "{var.region}" }

[[profile.request]]
name = "owner"
url = "{endpoint}/v1/owners/{widget:$.ownerId}"
when = "target"

[profile.status]
request = "widget"
path = "$.status"
pending = ["creating"]
target = ["ready"]
failed = ["error"]

[[profile.map]]
request = "owner"
from = "$.name"
to = "owner_name"

[profile.poll]
interval = "2s"
timeout = "10m"
"#;

    fn load(text: &str) -> Result<Profiles, String> {
        let mut profiles = Profiles::default();
        profiles
            .add_str(text, "widgets.toml")
            .map(|()| profiles)
            .map_err(|error| error.message)
    }

    /// `VALID` with `from` replaced by `to`, which must fail with `expected` at `line:column`.
    #[track_caller]
    fn refuses(from: &str, to: &str, expected: &str) {
        assert!(VALID.contains(from), "{from}");
        let error = load(&VALID.replacen(from, to, 1)).unwrap_err();
        assert!(error.contains(expected), "{error}\nexpected: {expected}");
        assert!(error.starts_with("widgets.toml:"), "{error}");
        assert!(!error.contains('\n'), "one line: {error}");
    }

    #[test]
    fn loads_a_valid_profile() {
        let profiles = load(VALID).unwrap();
        let profile = profiles.for_type("example_widget").unwrap();
        assert_eq!(profile.requests.len(), 2);
        assert_eq!(profile.requests[1].when, When::Target);
        assert_eq!(profile.poll.timeout.as_secs(), 600);
        assert_eq!(profile.endpoint.as_deref(), Some("example"));
    }

    #[test]
    fn errors_carry_file_line_and_column() {
        let error =
            load(&VALID.replace(r#"scheme = "bearer""#, r#"scheme = "kerberos""#)).unwrap_err();
        assert_eq!(
            error,
            "widgets.toml:9:10: unknown auth scheme `kerberos`; schemes: `oci-signature`, `bearer`, `basic`, `header`, `none`"
        );
    }

    #[test]
    fn refuses_unknown_auth_settings_and_missing_ones() {
        refuses(
            "token_env",
            "username_env",
            "`username_env` does not apply to `bearer` auth",
        );
        refuses(
            "token_env = \"EXAMPLE_TOKEN\"",
            "",
            "`bearer` auth needs `token_env`",
        );
    }

    #[test]
    fn refuses_an_unknown_template_namespace() {
        refuses(
            "{attr.id}",
            "{attribute.id}",
            "unknown template namespace `attribute` in `{attribute.id}`",
        );
        refuses(
            "{var.region}",
            "{var.zone}",
            "no variable `zone`; variables: `region`",
        );
    }

    #[test]
    fn refuses_reading_a_later_or_unknown_request() {
        refuses(
            "{attr.id}\"\nquery",
            "{owner:$.id}\"\nquery",
            "request `owner` comes later; a template reads only earlier responses",
        );
        refuses(
            "{widget:$.ownerId}",
            "{gadget:$.ownerId}",
            "no request named `gadget`; requests: `widget`, `owner`",
        );
    }

    #[test]
    fn refuses_duplicate_names() {
        refuses(
            r#"name = "owner""#,
            r#"name = "widget""#,
            "a second request named `widget`",
        );
        let twice = format!("{VALID}\n{}", &VALID[VALID.find("[[profile]]").unwrap()..]);
        let error = load(&twice).unwrap_err();
        assert!(
            error.contains("a second profile for `example_widget` in one file"),
            "{error}"
        );
        refuses(
            "to = \"owner_name\"",
            "to = \"owner_name\"\n[[profile.map]]\nrequest = \"widget\"\nfrom = \"$.x\"\nto = \"owner_name\"",
            "two mappings write `owner_name`",
        );
    }

    #[test]
    fn refuses_a_status_from_an_unknown_request_or_without_values() {
        refuses(
            "request = \"widget\"\npath",
            "request = \"gizmo\"\npath",
            "the status reads unknown request `gizmo`; requests: `widget`, `owner`",
        );
        refuses(
            "pending = [\"creating\"]\ntarget = [\"ready\"]",
            "",
            "the status lists neither `pending` nor `target` values",
        );
        refuses(
            "failed = [\"error\"]",
            "failed = [\"Ready\"]",
            "status value `ready` is both `target` and `failed`",
        );
        refuses(
            "when = \"target\"",
            "when = \"later\"",
            "`when = \"later\"`: write `always` or `target`",
        );
    }

    #[test]
    fn refuses_bad_durations_and_numbers() {
        refuses("\"2s\"", "\"2 seconds\"", "invalid duration `2 seconds`");
        refuses(
            "timeout = \"10m\"",
            "timeout = \"0\"",
            "`timeout` must be more than zero",
        );
        refuses(
            "timeout = \"10m\"",
            "max_interval = \"1s\"",
            "`max_interval` is shorter than `interval`",
        );
    }

    #[test]
    fn refuses_bad_jsonpath_at_load() {
        refuses(
            "path = \"$.status\"",
            "path = \"$.status[\"",
            "invalid JSONPath `$.status[`",
        );
        refuses(
            "path = \"$.status\"",
            "path = \"status\"",
            "it starts at `$`",
        );
        refuses("from = \"$.name\"", "from = \"$..[\"", "invalid JSONPath");
    }

    #[test]
    fn refuses_unsafe_requests() {
        refuses(
            "url = \"{endpoint}/v1/widgets",
            "method = \"DELETE\"\nurl = \"{endpoint}/v1/widgets",
            "a refresh only reads",
        );
        refuses(
            "query = { region",
            "headers = { Authorization = \"Basic x\" }\nquery = { region",
            "header `Authorization` is set by the `bearer` auth",
        );
        refuses(
            "/v1/widgets/{attr.id}",
            "/v1/widgets?id={attr.id}",
            "query parameters belong in `query`",
        );
        refuses(
            "{endpoint}/v1/widgets",
            "{endpoint}.evil.com/v1/widgets",
            "`{endpoint}` must be followed by `/`",
        );
        refuses(
            "default_url = \"https://api.example.com\"",
            "default_url = \"https://{attr.host}\"\nfoo = 1",
            "unknown field `foo`",
        );
    }

    #[test]
    fn a_request_waiting_for_the_target_cannot_feed_one_that_always_runs() {
        let text = VALID.replace(
            "[profile.status]",
            "[[profile.request]]\nname = \"late\"\nurl = \"{endpoint}/v1/{owner:$.id}\"\n\n[profile.status]",
        );
        let error = load(&text).unwrap_err();
        assert!(
            error.contains("give this one `when = \"target\"`"),
            "{error}"
        );
    }

    #[test]
    fn extends_reuses_requests_and_changes_variables() {
        let child = r#"
[[profile]]
type = "example_gadget"
extends = "example_widget"
variables = { region = "{attr.location}" }
[profile.limits]
concurrency = 2
"#;
        let mut profiles = load(VALID).unwrap();
        profiles.add_str(child, "gadgets.toml").unwrap();
        let gadget = profiles.for_type("example_gadget").unwrap();
        assert_eq!(gadget.requests.len(), 2);
        assert_eq!(gadget.variables["region"].text, "{attr.location}");
        assert_eq!(gadget.limits.concurrency, 2);
        assert_eq!(gadget.origin, "gadgets.toml");
        let error = profiles
            .add_str(&format!("{child}[profile.status]\nrequest = \"widget\"\npath = \"$.x\"\ntarget = [\"a\"]\n"), "gadgets.toml")
            .unwrap_err();
        assert!(error.message.contains("reuses its requests"), "{error}");
        let error = profiles
            .add_str(&child.replace("example_widget", "nothing"), "gadgets.toml")
            .unwrap_err();
        assert!(error.message.contains("no such profile"), "{error}");
    }

    #[test]
    fn an_extending_auth_cannot_clash_with_inherited_headers() {
        let mut profiles = load(&VALID.replace(
            "query = { region",
            "headers = { X-Api-Key = \"public\" }\nquery = { region",
        ))
        .unwrap();
        let error = profiles
            .add_str(
                "[[profile]]\ntype = \"b\"\nextends = \"example_widget\"\n[profile.auth]\nscheme = \"header\"\nheader = \"x-api-key\"\nvalue_env = \"KEY\"\n",
                "b.toml",
            )
            .unwrap_err();
        assert_eq!(
            error.message,
            "b.toml:4:1: header `X-Api-Key` is set by the `header` auth; credentials never go in `headers`"
        );
    }

    #[test]
    fn toml_syntax_errors_name_the_place_and_hint_at_the_format() {
        let mut profiles = Profiles::default();
        let error = profiles
            .add_str("[[profile]]\ntype = \"x\"\npendng = 1\n", "p.toml")
            .unwrap_err();
        assert!(
            error
                .message
                .starts_with("p.toml:3:1: invalid profile file: unknown field `pendng`"),
            "{error}"
        );
        assert!(error.hint.unwrap().contains("--profiles-format"));
    }
}
