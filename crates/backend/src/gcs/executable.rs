//! An executable-sourced subject token (`credential_source.executable`), as Google's libraries run
//! it: only when GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1; the `command` split on whitespace and
//! run without a shell, with the GOOGLE_EXTERNAL_ACCOUNT_* variables that describe the request,
//! stopped after `timeout_millis` (5 to 120 s, 30 s when unset); its JSON answer (`version` 1,
//! `success`, `token_type`, `id_token` or `saml_response`, `expiration_time`) read from its output,
//! or from `output_file` first while the token written there has not expired.

use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::client::MAX_TOKEN_BODY;
use super::credential_error::CredentialError;
use super::external_account::ExternalAccount;
use statectl_net::Secret;

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
const SHORTEST_TIMEOUT: Duration = Duration::from_secs(5);
const LONGEST_TIMEOUT: Duration = Duration::from_secs(120);
/// How often a running command is looked at.
const POLL: Duration = Duration::from_millis(20);

/// `credential_source.executable`.
#[derive(Debug, Clone)]
pub(super) struct Executable {
    command: String,
    timeout: Duration,
    output_file: Option<String>,
}

/// Why an answer gives no token; a `stale` one (expired, or a failure the command reported) in
/// the output file means the command is run instead.
struct Refusal {
    error: CredentialError,
    stale: bool,
}

impl Executable {
    pub(super) fn parse(value: &Value, from: &str) -> Result<Executable, CredentialError> {
        let command = value["command"]
            .as_str()
            .filter(|command| !command.trim().is_empty())
            .ok_or_else(|| CredentialError::NoCommand {
                from: from.to_owned(),
            })?
            .to_owned();
        let timeout = match &value["timeout_millis"] {
            Value::Null => DEFAULT_TIMEOUT,
            millis => match millis.as_u64().map(Duration::from_millis) {
                Some(Duration::ZERO) => DEFAULT_TIMEOUT,
                Some(timeout) if (SHORTEST_TIMEOUT..=LONGEST_TIMEOUT).contains(&timeout) => timeout,
                _ => {
                    return Err(CredentialError::ExecutableTimeout {
                        from: from.to_owned(),
                    });
                }
            },
        };
        let output_file = value["output_file"]
            .as_str()
            .filter(|path| !path.is_empty())
            .map(ToOwned::to_owned);
        Ok(Executable {
            command,
            timeout,
            output_file,
        })
    }

    /// The token from the output file while it is fresh, else from a run of the command.
    pub(super) async fn token(&self, account: &ExternalAccount) -> Result<Secret, CredentialError> {
        if let Some(path) = &self.output_file
            && let Some(bytes) = read_small(path)
            && !bytes.is_empty()
        {
            let what = format!("the output file `{path}` of `credential_source.executable`");
            match answer(&bytes, &what, true) {
                Ok(token) => return Ok(token),
                Err(refusal) if refusal.stale => {}
                Err(refusal) => return Err(refusal.error),
            }
        }
        if !account.executables_allowed {
            return Err(CredentialError::ExecutablesNotAllowed {
                from: account.from.clone(),
                program: self.program().to_owned(),
            });
        }
        let mut variables = vec![
            (
                "GOOGLE_EXTERNAL_ACCOUNT_AUDIENCE",
                account.audience().to_owned(),
            ),
            (
                "GOOGLE_EXTERNAL_ACCOUNT_TOKEN_TYPE",
                account.subject_token_type().to_owned(),
            ),
            ("GOOGLE_EXTERNAL_ACCOUNT_INTERACTIVE", "0".to_owned()),
        ];
        if let Some(email) = account.impersonated() {
            variables.push((
                "GOOGLE_EXTERNAL_ACCOUNT_IMPERSONATED_EMAIL",
                email.to_owned(),
            ));
        }
        if let Some(path) = &self.output_file {
            variables.push(("GOOGLE_EXTERNAL_ACCOUNT_OUTPUT_FILE", path.clone()));
        }
        let this = self.clone();
        let output = tokio::task::spawn_blocking(move || this.run(&variables))
            .await
            .map_err(|_| CredentialError::NotRun {
                program: self.program().to_owned(),
            })??;
        let what = format!(
            "the answer of `{}` (`credential_source.executable`)",
            self.program()
        );
        answer(&output, &what, self.output_file.is_some()).map_err(|refusal| refusal.error)
    }

    /// The program's name, for messages (its arguments may hold anything).
    fn program(&self) -> &str {
        self.command.split_whitespace().next().unwrap_or_default()
    }

    /// Runs the command within its timeout; its output (stdout, else stderr), trimmed.
    fn run(&self, variables: &[(&str, String)]) -> Result<Vec<u8>, CredentialError> {
        let program = self.program();
        let mut child = Command::new(program)
            .args(self.command.split_whitespace().skip(1))
            .envs(variables.iter().map(|(name, value)| (*name, value)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| CredentialError::CannotRun {
                program: program.to_owned(),
                source,
            })?;
        let stdout = child.stdout.take().map(reader);
        let stderr = child.stderr.take().map(reader);
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if started.elapsed() < self.timeout => std::thread::sleep(POLL),
                Ok(None) | Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(CredentialError::NoAnswerWithin {
                        program: program.to_owned(),
                        seconds: self.timeout.as_secs(),
                    });
                }
            }
        };
        let stdout = stdout
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default();
        let stderr = stderr
            .and_then(|thread| thread.join().ok())
            .unwrap_or_default();
        if !status.success() {
            let program = program.to_owned();
            return Err(match status.code() {
                Some(code) => CredentialError::ExitCode { program, code },
                None => CredentialError::Killed { program },
            });
        }
        let output = if stdout.trim_ascii().is_empty() {
            stderr
        } else {
            stdout
        };
        Ok(output.trim_ascii().to_vec())
    }
}

/// Reads a child's pipe on a thread of its own, keeping at most 1 MiB.
fn reader(pipe: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut pipe = pipe;
        let _ = (&mut pipe).take(MAX_TOKEN_BODY).read_to_end(&mut kept);
        // Drain the rest so that the command is never blocked on a full pipe.
        let _ = std::io::copy(&mut pipe, &mut std::io::sink());
        kept
    })
}

/// The output file's bytes, when it can be read (else the command is run).
fn read_small(path: &str) -> Option<Vec<u8>> {
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_TOKEN_BODY).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// The token in an executable's JSON answer, checked as Google's libraries check it.
fn answer(bytes: &[u8], what: &str, needs_expiry: bool) -> Result<Secret, Refusal> {
    let named = || what.to_owned();
    let refuse = |error| Refusal {
        error,
        stale: false,
    };
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|_| refuse(CredentialError::AnswerNotJson { what: named() }))?;
    let missing = |field: &str| {
        refuse(CredentialError::AnswerWithout {
            what: named(),
            field: field.to_owned(),
        })
    };
    let version = value["version"].as_i64().filter(|version| *version != 0);
    let Some(version) = version else {
        return Err(missing("version"));
    };
    let Some(success) = value["success"].as_bool() else {
        return Err(missing("success"));
    };
    if !success {
        let (Some(code), Some(message)) = (value["code"].as_str(), value["message"].as_str())
        else {
            return Err(Refusal {
                error: CredentialError::AnswerFailedSilently { what: named() },
                stale: true,
            });
        };
        return Err(Refusal {
            error: CredentialError::AnswerFailed {
                what: named(),
                code: code.to_owned(),
                message: message.to_owned(),
            },
            stale: true,
        });
    }
    if version != 1 {
        return Err(refuse(CredentialError::AnswerVersion {
            what: named(),
            version,
        }));
    }
    let expires = value["expiration_time"].as_i64().unwrap_or(0);
    if expires == 0 && needs_expiry {
        return Err(missing("expiration_time"));
    }
    let Some(token_type) = value["token_type"].as_str() else {
        return Err(missing("token_type"));
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
        });
    if expires != 0 && expires < now {
        return Err(Refusal {
            error: CredentialError::AnswerExpired { what: named() },
            stale: true,
        });
    }
    let field = match token_type {
        "urn:ietf:params:oauth:token-type:jwt" | "urn:ietf:params:oauth:token-type:id_token" => {
            "id_token"
        }
        "urn:ietf:params:oauth:token-type:saml2" => "saml_response",
        other => {
            return Err(refuse(CredentialError::AnswerTokenType {
                what: named(),
                kind: other.to_owned(),
            }));
        }
    };
    value[field]
        .as_str()
        .filter(|token| !token.is_empty())
        .map(Secret::new)
        .ok_or_else(|| missing(field))
}
