//! `statectl-sim tfe`: the part of HCP Terraform's API (and Terraform Enterprise's) that Terraform's
//! `cloud` block and `backend "remote"` use for state, for statectl's and Terraform's tests.
//!
//! - `GET /.well-known/terraform.json`: service discovery (`tfe.v2` at `/api/v2/`);
//! - `/api/v2/...` with `Authorization: Bearer <--token>` (401 otherwise): `ping`, the organization
//!   and its `entitlement-set` (no remote operations, so Terraform runs locally), workspaces by
//!   name, listed (paged; `search[tags]` by key, `filter[tagged][N][key]` and `[value]` for the
//!   key/value tags `KEY=VALUE`, `search[name]` matching anywhere in the name,
//!   `filter[project][id]`) and by ID (`include=locked_by`), projects by `filter[names]`
//!   (`NAME:TAGS:PROJECT` puts a workspace in a project), created and updated as
//!   Terraform does for a new one; `current-state-version` (404 when none);
//!   `POST workspaces/:id/state-versions` (only while the token's user holds the lock; without
//!   `state` the version waits, `pending`, for its bytes at `hosted-state-upload-url`; with
//!   `--no-upload`, as Terraform Enterprise v202306-1 and before, the answer is 422 "param is missing
//!   or the value is empty: state" and `state` must come inline); the MD5 is checked either way;
//!   `actions/lock` (409 while locked), `actions/unlock` (409 while a version is pending, or when
//!   another holds it), `actions/force-unlock`; `GET state-versions?filter[workspace][name]=...`
//!   (the workspace's versions newest first, paged, with run and creator);
//! - `GET /api/state-versions/:id/hosted_state` (with the token) redirects (307) to
//!   `/_archivist/download/:id` on the other name of loopback (`localhost` and `127.0.0.1`), which
//!   serves the bytes (no token: the URL is the secret, and a client must not send it elsewhere);
//!   `PUT /_archivist/upload/:id` (no token: the URL is the secret) receives them (and
//!   `upload-json/:id` the JSON representation Terraform also sends, which is dropped);
//! - faults (`--fault 'METHOD:PATH-FRAGMENT=STATUS|hang[*COUNT]'`): answer that status (a 429 with
//!   `Retry-After: 1` and `X-RateLimit-Reset: 0.2`), or say nothing, for matching requests;
//!   `--tag-pages-repeat N` makes the tagged list hostile (every page repeats the first and offers
//!   another, up to page N, or for ever with 0);
//!   `Retry-After: 1` and `X-RateLimit-Reset: 0.2`), or say nothing, for matching requests; with
//!   `--echo-faults` the error's title and detail echo the whole request, token included;
//! - `/_sim/...` for tests, unauthenticated: `GET /_sim/log`, `GET /_sim/versions?workspace=N` (every
//!   state version: serial, md5, lineage, status, the state), `GET /_sim/lock?workspace=N` (the
//!   holder's name, 204 when free), `POST /_sim/lock?workspace=N&user=U` (lock it as someone else),
//!   `POST /_sim/fault` (a spec as the body).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use md5::Digest as _;
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::net::TcpListener;

use crate::http::{Request, Response, locked};
use crate::setup::SetupError;
use crate::state_server::{self, Answer, StateServer, log_line};
use crate::wire_faults;

const MAX_STATE: u64 = 512 << 20;
const JSON_API: &str = "application/vnd.api+json";

/// One injected fault; its target is a fragment of the request target, its action a status to
/// answer, or `None` to say nothing.
pub(crate) type Fault = wire_faults::Fault<Option<u16>>;

impl Fault {
    /// `GET:current-state-version=503*2`, `POST:actions/lock=429`, `GET:/api/v2/=hang`.
    pub(crate) fn parse(spec: &str) -> Result<Fault, SetupError> {
        const GRAMMAR: &str = "METHOD:PATH-FRAGMENT=STATUS|hang[*COUNT]";
        wire_faults::fault(spec, GRAMMAR, |target, action, remaining| {
            let (method, fragment) = target.split_once(':')?;
            let status = match action {
                "hang" => None,
                status => Some(wire_faults::status(status)?),
            };
            Some(Fault {
                method: method.to_ascii_uppercase(),
                target: fragment.to_owned(),
                action: status,
                remaining,
            })
        })
    }
}

/// The server's settings.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub token: String,
    pub user: String,
    pub organization: String,
    /// `name`, `name:tag,tag` or `name:tag,tag:project`.
    pub workspaces: Vec<String>,
    /// `workspace=FILE`: a state version to start with.
    pub states: Vec<(String, Vec<u8>)>,
    pub upload_flow: bool,
    pub faults: Vec<Fault>,
    /// Every page of the tagged list repeats the first and offers another, up to this page
    /// (`Some(0)`: for ever): a server a listing must not follow for ever nor count twice.
    pub tag_pages_repeat: Option<usize>,
    pub echo_faults: bool,
    pub verbose: bool,
}

#[derive(Debug)]
struct Workspace {
    id: String,
    name: String,
    tags: Vec<String>,
    /// Its project's ID.
    project: Option<String>,
    locked_by: Option<String>,
}

#[derive(Debug)]
struct Version {
    id: String,
    workspace: String,
    serial: i64,
    md5: String,
    lineage: Option<String>,
    state: Option<Vec<u8>>,
    /// When it was created (RFC 3339), who created it (the token's user), in which run.
    created_at: String,
    created_by: String,
    run: Option<String>,
}

#[derive(Debug, Default)]
struct Inner {
    workspaces: Vec<Workspace>,
    /// ID and name.
    projects: Vec<(String, String)>,
    versions: Vec<Version>,
    faults: Vec<Fault>,
    log: Vec<Value>,
    next_id: u64,
}

impl Inner {
    fn id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}-sim{:06}", self.next_id)
    }

    fn workspace_by_name(&self, name: &str) -> Option<usize> {
        self.workspaces.iter().position(|w| w.name == name)
    }

    fn workspace_by_id(&self, id: &str) -> Option<usize> {
        self.workspaces.iter().position(|w| w.id == id)
    }

    /// The newest finished state version of workspace `id`.
    fn current(&self, id: &str) -> Option<&Version> {
        self.versions
            .iter()
            .rev()
            .find(|v| v.workspace == id && v.state.is_some())
    }

    fn pending(&self, id: &str) -> bool {
        self.versions
            .iter()
            .any(|v| v.workspace == id && v.state.is_none())
    }
}

/// The server.
#[derive(Debug)]
pub(crate) struct Tfe {
    token: String,
    user: String,
    organization: String,
    upload_flow: bool,
    tag_pages_repeat: Option<usize>,
    echo_faults: bool,
    verbose: bool,
    inner: Mutex<Inner>,
}

impl Tfe {
    pub(crate) fn new(options: Options) -> Result<Tfe, SetupError> {
        let mut inner = Inner {
            faults: options.faults,
            ..Inner::default()
        };
        for spec in &options.workspaces {
            let mut parts = spec.splitn(3, ':');
            let name = parts.next().unwrap_or_default();
            let tags = parts.next().unwrap_or_default();
            let project = parts
                .next()
                .filter(|project| !project.is_empty())
                .map(|project| {
                    if let Some((id, _)) = inner.projects.iter().find(|(_, known)| known == project)
                    {
                        return id.clone();
                    }
                    let id = inner.id("prj");
                    inner.projects.push((id.clone(), project.to_owned()));
                    id
                });
            let id = inner.id("ws");
            inner.workspaces.push(Workspace {
                id,
                name: name.to_owned(),
                tags: tags
                    .split(',')
                    .filter(|t| !t.is_empty())
                    .map(ToOwned::to_owned)
                    .collect(),
                project,
                locked_by: None,
            });
        }
        for (name, state) in options.states {
            let index = inner
                .workspace_by_name(&name)
                .ok_or_else(|| SetupError::NoWorkspace(name.clone()))?;
            let meta: Value = serde_json::from_slice(&state).unwrap_or(Value::Null);
            let id = inner.id("sv");
            let workspace = inner.workspaces[index].id.clone();
            inner.versions.push(Version {
                id,
                workspace,
                serial: meta["serial"].as_i64().unwrap_or(0),
                md5: hex_md5(&state),
                lineage: meta["lineage"].as_str().map(ToOwned::to_owned),
                state: Some(state),
                created_at: crate::clock::rfc3339(std::time::SystemTime::now(), true),
                created_by: options.user.clone(),
                run: None,
            });
        }
        Ok(Tfe {
            token: options.token,
            user: options.user,
            organization: options.organization,
            upload_flow: options.upload_flow,
            tag_pages_repeat: options.tag_pages_repeat,
            echo_faults: options.echo_faults,
            verbose: options.verbose,
            inner: Mutex::new(inner),
        })
    }

    fn route(&self, request: &Request, body: &[u8]) -> Response {
        let path = request.path.as_str();
        let host = request.header("host").unwrap_or("localhost").to_owned();
        if path == "/.well-known/terraform.json" {
            return Response::json(
                200,
                &json!({"tfe.v2": "/api/v2/", "tfe.v2.1": "/api/v2/", "tfe.v2.2": "/api/v2/",
                        "state.v2": "/api/v2/", "modules.v1": "/api/registry/v1/modules/",
                        "motd.v1": "/api/terraform/motd"}),
            );
        }
        if path.starts_with("/_archivist/upload-json/") {
            // Terraform also uploads the state's JSON representation; it is accepted and dropped.
            return Response::empty(200);
        }
        if let Some(id) = path.strip_prefix("/_archivist/download/") {
            let inner = locked(&self.inner);
            return match inner
                .versions
                .iter()
                .find(|v| v.id == id)
                .and_then(|v| v.state.clone())
            {
                Some(state) => Response {
                    status: 200,
                    headers: vec![("content-type".to_owned(), "application/json".to_owned())],
                    body: state,
                },
                None => error(404, "not found", "no state uploaded"),
            };
        }
        if let Some(id) = path.strip_prefix("/_archivist/upload/") {
            return self.upload(id, request, body);
        }
        let api = path
            .strip_prefix("/api/v2/")
            .or_else(|| path.strip_prefix("/api/"));
        let Some(api) = api else {
            return error(404, "not found", "no such endpoint");
        };
        let expected = format!("Bearer {}", self.token);
        if request.header("authorization") != Some(expected.as_str()) {
            return error(401, "unauthorized", "a valid API token is required");
        }
        let parts: Vec<&str> = api.split('/').collect();
        let method = request.method.as_str();
        let response = match (method, parts.as_slice()) {
            ("GET", ["ping"]) => Response::empty(204),
            ("GET", ["organizations", org]) if *org == self.organization => jsonapi(
                200,
                &json!({"data": {"id": org, "type": "organizations",
                                 "attributes": {"name": org, "external-id": "org-sim"}}}),
            ),
            ("GET", ["organizations", org, "entitlement-set"]) if *org == self.organization => {
                jsonapi(
                    200,
                    &json!({"data": {"id": "org-sim", "type": "entitlement-sets",
                        "attributes": {"operations": false, "state-storage": true,
                                       "private-module-registry": false, "teams": false,
                                       "sentinel": false, "vcs-integrations": false}}}),
                )
            }
            ("GET", ["organizations", org, "workspaces"]) if *org == self.organization => {
                self.list(request)
            }
            ("GET", ["organizations", org, "projects"]) if *org == self.organization => {
                self.projects(request)
            }
            ("POST", ["organizations", org, "workspaces"]) if *org == self.organization => {
                self.create(body)
            }
            ("GET", ["organizations", org, "workspaces", name]) if *org == self.organization => {
                let inner = locked(&self.inner);
                match inner.workspace_by_name(name) {
                    Some(index) => workspace_json(&inner, index, false),
                    None => error(404, "not found", "workspace not found"),
                }
            }
            (_, ["workspaces", id, rest @ ..]) => {
                self.workspace(method, id, rest, request, body, &host)
            }
            ("GET", ["state-versions"]) => self.list_versions(request, &host),
            ("GET", ["state-versions", id]) => {
                let inner = locked(&self.inner);
                match inner.versions.iter().find(|v| v.id == *id) {
                    Some(version) => version_json(version, &host),
                    None => error(404, "not found", "state version not found"),
                }
            }
            // The API's URL sends the client on to the object store, here on another host name
            // for the same server, so that a test sees whether the token went along.
            ("GET", ["state-versions", id, "hosted_state"]) => to_archivist(&host, id),
            _ => error(404, "not found", "no such endpoint"),
        };
        response.with_header("tfp-api-version", "2.6")
    }

    /// `GET organizations/:org/projects?filter[names]=A,B`: the projects named so, one page.
    fn projects(&self, request: &Request) -> Response {
        let inner = locked(&self.inner);
        let wanted: Vec<&str> = request
            .query("filter[names]")
            .map(|names| names.split(',').collect())
            .unwrap_or_default();
        let data: Vec<Value> = inner
            .projects
            .iter()
            .filter(|(_, name)| wanted.is_empty() || wanted.contains(&name.as_str()))
            .map(|(id, name)| json!({"id": id, "type": "projects", "attributes": {"name": name}}))
            .collect();
        let count = data.len();
        jsonapi(
            200,
            &json!({"data": data, "meta": {"pagination": pagination(1, 1, count)}}),
        )
    }

    fn list(&self, request: &Request) -> Response {
        let inner = locked(&self.inner);
        let wanted: Vec<&str> = request
            .query("search[tags]")
            .map(|tags| tags.split(',').filter(|t| !t.is_empty()).collect())
            .unwrap_or_default();
        let named = request.query("search[name]").unwrap_or_default();
        // `filter[tagged][N][key]` and `[value]`, from N = 0 while there is a key.
        let bindings: Vec<(&str, &str)> = (0..)
            .map_while(|n| {
                let key = request.query(&format!("filter[tagged][{n}][key]"))?;
                let value = request
                    .query(&format!("filter[tagged][{n}][value]"))
                    .unwrap_or_default();
                Some((key, value))
            })
            .collect();
        let project = request.query("filter[project][id]");
        let (size, page) = paging(request);
        let matching: Vec<usize> = (0..inner.workspaces.len())
            .filter(|&i| {
                let workspace = &inner.workspaces[i];
                wanted
                    .iter()
                    .all(|tag| workspace.tags.iter().any(|t| tag_key(t) == *tag))
                    && bindings.iter().all(|(key, value)| {
                        workspace.tags.iter().any(|t| {
                            tag_key(t) == *key
                                && (value.is_empty() || t == &format!("{key}={value}"))
                        })
                    })
                    && workspace.name.contains(named)
                    && project.is_none_or(|project| workspace.project.as_deref() == Some(project))
            })
            .collect();
        let total_pages = match self.tag_pages_repeat {
            Some(0) => usize::MAX,
            Some(pages) => pages,
            None => matching.len().div_ceil(size).max(1),
        };
        // A hostile list repeats its first page on every page.
        let shown = if self.tag_pages_repeat.is_some() {
            1
        } else {
            page
        };
        let data: Vec<Value> = matching
            .iter()
            .skip((shown - 1) * size)
            .take(size)
            .map(|&i| workspace_data(&inner, i))
            .collect();
        jsonapi(
            200,
            &json!({"data": data, "meta": {"pagination": pagination(page, total_pages, matching.len())}}),
        )
    }

    /// `GET state-versions?filter[workspace][name]=W&filter[organization][name]=O`: the workspace's
    /// versions, newest first, paged, each with its run and its creator (`include=created_by`
    /// adds the users).
    fn list_versions(&self, request: &Request, host: &str) -> Response {
        let inner = locked(&self.inner);
        if request.query("filter[organization][name]") != Some(self.organization.as_str()) {
            return error(404, "not found", "organization not found");
        }
        let Some(index) = request
            .query("filter[workspace][name]")
            .and_then(|name| inner.workspace_by_name(name))
        else {
            return error(404, "not found", "workspace not found");
        };
        let workspace = &inner.workspaces[index].id;
        let (size, page) = paging(request);
        let matching: Vec<&Version> = inner
            .versions
            .iter()
            .rev()
            .filter(|version| version.workspace == *workspace)
            .collect();
        let total_pages = matching.len().div_ceil(size).max(1);
        let shown: Vec<&Version> = matching
            .iter()
            .skip((page - 1) * size)
            .take(size)
            .copied()
            .collect();
        let data: Vec<Value> = shown
            .iter()
            .map(|version| version_data(version, host))
            .collect();
        let mut users: Vec<&str> = shown
            .iter()
            .map(|version| version.created_by.as_str())
            .collect();
        users.sort_unstable();
        users.dedup();
        let included: Vec<Value> = users
            .iter()
            .map(|user| json!({"id": format!("user-{user}"), "type": "users", "attributes": {"username": user}}))
            .collect();
        jsonapi(
            200,
            &json!({"data": data, "included": included,
                "meta": {"pagination": pagination(page, total_pages, matching.len())}}),
        )
    }

    fn create(&self, body: &[u8]) -> Response {
        let body: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let Some(name) = body["data"]["attributes"]["name"].as_str() else {
            return error(422, "invalid attribute", "Name can't be blank");
        };
        let mut inner = locked(&self.inner);
        if inner.workspace_by_name(name).is_some() {
            return error(422, "invalid attribute", "Name has already been taken");
        }
        let id = inner.id("ws");
        inner.workspaces.push(Workspace {
            id,
            name: name.to_owned(),
            tags: Vec::new(),
            project: None,
            locked_by: None,
        });
        let index = inner.workspaces.len() - 1;
        let mut response = workspace_json(&inner, index, false);
        response.status = 201;
        response
    }

    fn workspace(
        &self,
        method: &str,
        id: &str,
        rest: &[&str],
        request: &Request,
        body: &[u8],
        host: &str,
    ) -> Response {
        let mut inner = locked(&self.inner);
        let Some(index) = inner.workspace_by_id(id) else {
            return error(404, "not found", "workspace not found");
        };
        match (method, rest) {
            ("GET" | "PATCH", []) => {
                let include = request
                    .query("include")
                    .is_some_and(|i| i.contains("locked_by"));
                workspace_json(&inner, index, include)
            }
            ("GET", ["current-state-version"]) => match inner.current(id) {
                Some(version) => version_json(version, host),
                None => error(404, "not found", "no state version"),
            },
            ("POST", ["actions", "lock"]) => {
                if inner.workspaces[index].locked_by.is_some() {
                    return error(
                        409,
                        "conflict",
                        "Unable to lock workspace. The workspace is already locked.",
                    );
                }
                inner.workspaces[index].locked_by = Some(self.user.clone());
                workspace_json(&inner, index, false)
            }
            ("POST", ["actions", "unlock"]) => match inner.workspaces[index].locked_by.clone() {
                None => error(
                    409,
                    "conflict",
                    "Unable to unlock workspace. The workspace is not locked.",
                ),
                Some(user) if user != self.user => error(
                    409,
                    "conflict",
                    &format!("Unable to unlock workspace. The workspace is locked by User {user}."),
                ),
                Some(_) if inner.pending(id) => error(
                    409,
                    "conflict",
                    "Unable to unlock workspace. The latest state version is still pending.",
                ),
                Some(_) => {
                    inner.workspaces[index].locked_by = None;
                    workspace_json(&inner, index, false)
                }
            },
            ("POST", ["actions", "force-unlock"]) => {
                inner.workspaces[index].locked_by = None;
                workspace_json(&inner, index, false)
            }
            ("POST", ["state-versions"]) => self.create_version(&mut inner, index, body, host),
            _ => error(404, "not found", "no such endpoint"),
        }
    }

    /// `POST workspaces/:id/state-versions`: only while the token's user holds the lock.
    fn create_version(&self, inner: &mut Inner, index: usize, body: &[u8], host: &str) -> Response {
        let id = inner.workspaces[index].id.clone();
        if inner.workspaces[index].locked_by.as_deref() != Some(self.user.as_str()) {
            return error(
                409,
                "conflict",
                "The workspace must be locked by you to create a state version.",
            );
        }
        let body: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let attributes = &body["data"]["attributes"];
        let (Some(serial), Some(md5)) = (attributes["serial"].as_i64(), attributes["md5"].as_str())
        else {
            return error(422, "invalid attribute", "serial and md5 are required");
        };
        let state = match attributes["state"].as_str() {
            Some(encoded) => match base64::engine::general_purpose::STANDARD.decode(encoded) {
                Ok(state) if hex_md5(&state) == md5 => Some(state),
                Ok(_) => {
                    return error(422, "invalid attribute", "md5 does not match the state");
                }
                Err(_) => {
                    return error(422, "invalid attribute", "state is not base64");
                }
            },
            None if !self.upload_flow => {
                return error(
                    400,
                    "bad request",
                    "param is missing or the value is empty: state",
                );
            }
            None => None,
        };
        let version_id = inner.id("sv");
        inner.versions.push(Version {
            id: version_id,
            workspace: id,
            serial,
            md5: md5.to_owned(),
            lineage: attributes["lineage"].as_str().map(ToOwned::to_owned),
            state,
            created_at: crate::clock::rfc3339(std::time::SystemTime::now(), true),
            created_by: self.user.clone(),
            run: body["data"]["relationships"]["run"]["data"]["id"]
                .as_str()
                .map(ToOwned::to_owned),
        });
        let mut response = version_json(inner.versions.last().expect("just pushed"), host);
        response.status = 201;
        response
    }

    fn upload(&self, id: &str, request: &Request, body: &[u8]) -> Response {
        if request.method != "PUT" {
            return error(405, "method not allowed", "PUT the state");
        }
        let mut inner = locked(&self.inner);
        let Some(version) = inner.versions.iter_mut().find(|v| v.id == id) else {
            return error(404, "not found", "no such upload");
        };
        if version.state.is_some() {
            return error(409, "conflict", "already uploaded");
        }
        if hex_md5(body) != version.md5 {
            return error(
                422,
                "invalid",
                "the upload does not match the version's md5",
            );
        }
        version.state = Some(body.to_vec());
        Response::empty(200)
    }
}

/// The redirect of state version `id`'s download to the object store, on the other name of
/// loopback.
fn to_archivist(host: &str, id: &str) -> Response {
    let other = if host.starts_with("localhost") {
        host.replacen("localhost", "127.0.0.1", 1)
    } else {
        host.replacen("127.0.0.1", "localhost", 1)
    };
    let mut response = Response::empty(307);
    response.headers.push((
        "location".to_owned(),
        format!("https://{other}/_archivist/download/{id}"),
    ));
    response
}

/// A tag's key: `env` of the key/value tag `env=prod`, the whole of a plain tag.
fn tag_key(tag: &str) -> &str {
    tag.split_once('=').map_or(tag, |(key, _)| key)
}

impl StateServer for Tfe {
    const MAX_BODY: u64 = MAX_STATE;

    fn malformed(status: u16, message: &str) -> Response {
        error(status, "malformed", message)
    }

    fn answer(&self, request: &Request, body: &[u8]) -> Answer {
        let fault = {
            let mut inner = locked(&self.inner);
            wire_faults::take(&mut inner.faults, |fault| {
                fault.method == request.method && request.target.contains(&fault.target)
            })
            .map(|fault| fault.action)
        };
        let answer = match fault {
            Some(None) => Answer::Hang,
            Some(Some(status)) => {
                let mut response = if self.echo_faults {
                    let echo = request.echo(body);
                    error(status, &echo, &echo)
                } else {
                    error(status, "injected fault", "the simulator was told to fail")
                };
                if status == 429 {
                    response = response
                        .with_header("retry-after", "1")
                        .with_header("x-ratelimit-reset", "0.2");
                }
                Answer::Respond(response)
            }
            None => Answer::Respond(self.route(request, body)),
        };
        let status = answer.logged();
        if self.verbose {
            log_line(&request.method, &request.target, &status);
        }
        locked(&self.inner).log.push(json!({
            "method": request.method,
            "target": request.target,
            "status": status,
            "authorized": request.header("authorization").is_some(),
        }));
        answer
    }

    fn control(&self, control: &str, request: &Request, body: &[u8]) -> Response {
        let mut inner = locked(&self.inner);
        let workspace = request
            .query("workspace")
            .and_then(|name| inner.workspace_by_name(name));
        match (request.method.as_str(), control) {
            ("GET", "log") => Response::json(200, &Value::Array(inner.log.clone())),
            ("GET", "versions") => {
                let Some(index) = workspace else {
                    return error(404, "not found", "no such workspace");
                };
                let id = inner.workspaces[index].id.clone();
                let versions: Vec<Value> = inner
                    .versions
                    .iter()
                    .filter(|v| v.workspace == id)
                    .map(|v| {
                        json!({"id": v.id, "serial": v.serial, "md5": v.md5, "lineage": v.lineage,
                               "state": v.state.as_deref().map(String::from_utf8_lossy)})
                    })
                    .collect();
                Response::json(200, &Value::Array(versions))
            }
            ("GET", "lock") => {
                match workspace.and_then(|i| inner.workspaces[i].locked_by.clone()) {
                    Some(user) => Response::json(200, &json!(user)),
                    None => Response::empty(204),
                }
            }
            ("POST", "lock") => {
                let Some(index) = workspace else {
                    return error(404, "not found", "no such workspace");
                };
                let user = request.query("user").unwrap_or("someone-else").to_owned();
                inner.workspaces[index].locked_by = Some(user);
                Response::empty(204)
            }
            ("DELETE", "lock") => {
                if let Some(index) = workspace {
                    inner.workspaces[index].locked_by = None;
                }
                Response::empty(204)
            }
            ("POST", "fault") => match Fault::parse(&String::from_utf8_lossy(body)) {
                Ok(fault) => {
                    inner.faults.push(fault);
                    Response::empty(204)
                }
                Err(message) => error(400, "bad fault", &message.to_string()),
            },
            _ => error(404, "not found", "no such control"),
        }
    }
}

fn workspace_data(inner: &Inner, index: usize) -> Value {
    let workspace = &inner.workspaces[index];
    let locked_by = workspace.locked_by.as_ref().map_or(
        Value::Null,
        |user| json!({"id": format!("user-{user}"), "type": "users"}),
    );
    json!({
        "id": workspace.id,
        "type": "workspaces",
        "attributes": {
            "name": workspace.name,
            "locked": workspace.locked_by.is_some(),
            "execution-mode": "local",
            "terraform-version": "latest",
            "tag-names": workspace.tags,
            "actions": {"is-destroyable": true},
            "permissions": {"can-update": true, "can-lock": true, "can-unlock": true,
                            "can-force-unlock": true, "can-read-state-versions": true,
                            "can-create-state-versions": true, "can-queue-run": true},
        },
        "relationships": {"locked-by": {"data": locked_by}},
    })
}

fn workspace_json(inner: &Inner, index: usize, include_holder: bool) -> Response {
    let mut body = json!({"data": workspace_data(inner, index)});
    if include_holder && let Some(user) = &inner.workspaces[index].locked_by {
        body["included"] = json!([{"id": format!("user-{user}"), "type": "users",
                                   "attributes": {"username": user}}]);
    }
    jsonapi(200, &body)
}

fn version_json(version: &Version, host: &str) -> Response {
    jsonapi(200, &json!({"data": version_data(version, host)}))
}

fn version_data(version: &Version, host: &str) -> Value {
    let status = if version.state.is_some() {
        "finalized"
    } else {
        "pending"
    };
    let run = version
        .run
        .as_ref()
        .map_or(Value::Null, |run| json!({"id": run, "type": "runs"}));
    json!({"id": version.id, "type": "state-versions", "attributes": {
        "serial": version.serial,
        "status": status,
        "lineage": version.lineage,
        "created-at": version.created_at,
        "size": version.state.as_ref().map(Vec::len),
        "hosted-state-download-url": format!("https://{host}/api/state-versions/{}/hosted_state", version.id),
        "hosted-state-upload-url": format!("https://{host}/_archivist/upload/{}", version.id),
        "hosted-json-state-upload-url": format!("https://{host}/_archivist/upload-json/{}", version.id),
        "resources-processed": true,
    },
    "relationships": {
        "run": {"data": run},
        "created-by": {"data": {"id": format!("user-{}", version.created_by), "type": "users"}},
    }})
}

/// The page size (`page[size]`, 1 to 100, 20 when not given) and the page (`page[number]`, from
/// 1) a listing asks for.
fn paging(request: &Request) -> (usize, usize) {
    let size: usize = request
        .query("page[size]")
        .and_then(|s| s.parse().ok())
        .unwrap_or(20)
        .clamp(1, 100);
    let page: usize = request
        .query("page[number]")
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1);
    (size, page)
}

/// A listing's `meta.pagination`: page `page` of `total_pages`, over `total_count` items.
fn pagination(page: usize, total_pages: usize, total_count: usize) -> Value {
    json!({
        "current-page": page, "next-page": (page < total_pages).then_some(page + 1),
        "prev-page": (page > 1).then(|| page - 1), "total-pages": total_pages,
        "total-count": total_count,
    })
}

fn error(status: u16, title: &str, detail: &str) -> Response {
    jsonapi(
        status,
        &json!({"errors": [{"status": status.to_string(), "title": title, "detail": detail}]}),
    )
}

/// A JSON:API answer.
fn jsonapi(status: u16, body: &Value) -> Response {
    Response {
        status,
        headers: vec![("content-type".to_owned(), JSON_API.to_owned())],
        body: serde_json::to_vec(body).expect("a JSON value always serializes"),
    }
}

fn hex_md5(data: &[u8]) -> String {
    format!("{:x}", md5::Md5::digest(data))
}

/// Serves `tfe` over TLS on `listener` (plain HTTP too, for tests) until the task is dropped.
pub(crate) async fn serve(listener: TcpListener, tfe: Arc<Tfe>, tls: tokio_rustls::TlsAcceptor) {
    wire_faults::accept_each(listener, |stream| {
        let tfe = Arc::clone(&tfe);
        let tls = tls.clone();
        async move {
            // A TLS handshake opens with 0x16; anything else is plain HTTP, which tests use for
            // `/_sim/...` without a TLS client of their own.
            let mut first = [0u8; 1];
            if matches!(stream.peek(&mut first).await, Ok(1)) && first[0] != 0x16 {
                state_server::serve_plain(stream, &*tfe).await;
            } else if let Ok(secure) = tls.accept(stream).await {
                state_server::serve_stream(&mut BufReader::new(secure), &*tfe).await;
            }
        }
    })
    .await;
}

/// A CA and a certificate for `localhost` and `127.0.0.1` it signed, written to `dir` (`ca.pem`,
/// `server.pem`, `server.key`); the acceptor serves with them.
pub(crate) fn self_signed(dir: &Path) -> Result<tokio_rustls::TlsAcceptor, SetupError> {
    let ca = crate::pki::TestCa::new("statectl-sim tfe CA").map_err(SetupError::Certificate)?;
    let server = ca
        .server(&["localhost", "127.0.0.1"])
        .map_err(SetupError::Certificate)?;
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|source| SetupError::Read { path, source })
    };
    write("ca.pem", ca.pem())?;
    write("server.pem", &server.certificate)?;
    write("server.key", &server.key)?;
    crate::state_backend::tls_acceptor(&dir.join("server.pem"), &dir.join("server.key"), None)
}

/// The states to start with, `workspace=FILE`.
pub(crate) fn read_states(specs: &[String]) -> Result<Vec<(String, Vec<u8>)>, SetupError> {
    let mut states = HashMap::new();
    for spec in specs {
        let (name, path) = spec
            .split_once('=')
            .ok_or_else(|| SetupError::StateSpec(spec.clone()))?;
        let bytes = std::fs::read(path).map_err(|source| SetupError::Read {
            path: path.into(),
            source,
        })?;
        states.insert(name.to_owned(), bytes);
    }
    Ok(states.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_method_fragment_status_and_count() {
        assert_eq!(
            Fault::parse("get:current-state-version=503*2").unwrap(),
            Fault {
                method: "GET".to_owned(),
                target: "current-state-version".to_owned(),
                action: Some(503),
                remaining: Some(2)
            }
        );
        assert_eq!(Fault::parse("GET:/api/=hang").unwrap().action, None);
        assert!(Fault::parse("GET=500").is_err());
        assert!(Fault::parse("GET:x=700").is_err());
    }
}
