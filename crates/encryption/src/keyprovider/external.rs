//! The external key provider: a command speaking OpenTofu's protocol
//! (`internal/encryption/keyprovider/external/`): it prints a header line
//! `{"magic":"OpenTofu-External-Key-Provider","version":1}`, reads `null` (a write) or
//! `{"external_data":{...}}` (the stored metadata, a read) on its standard input, and prints
//! `{"keys":{"encryption_key":"<base64>","decryption_key":"<base64>"},"meta":{"external_data":{...}}}`.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use super::KeyProvider;
use crate::config::KeyProviderConfig;
use crate::error::Error;
use crate::gojson::{decode_base64, push_value};
use statectl_net::Secret;

/// OpenTofu gives the command one minute.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(60);
const MAGIC: &str = "OpenTofu-External-Key-Provider";

/// A configured external key provider.
#[derive(Debug)]
pub struct External {
    at: String,
    command: Vec<String>,
    deadline: Duration,
}

#[derive(Deserialize)]
struct Header {
    magic: String,
    version: i64,
}

// Go's decoder runs with DisallowUnknownFields: any other key is a protocol error.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Output {
    keys: Keys,
    #[serde(default)]
    meta: Meta,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    encryption_key: Option<String>,
    #[serde(default)]
    decryption_key: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Meta {
    #[serde(default)]
    external_data: Option<Value>,
}

/// Go's `json.Marshal(MetadataV1{...})`: the metadata OpenTofu stores, and re-sends on a read.
fn marshal_meta(external_data: Option<&Value>) -> String {
    let mut out = String::from("{\"external_data\":");
    match external_data {
        None | Some(Value::Null) => out.push_str("null"),
        Some(v) => push_value(&mut out, v),
    }
    out.push('}');
    out
}

impl External {
    pub fn from_config(config: &KeyProviderConfig, deadline: Duration) -> Result<Self, Error> {
        let at = config.address();
        let mut command = None;
        for (key, value) in &config.body {
            match key.as_str() {
                "command" => {
                    let items = value.as_array().and_then(|items| {
                        items
                            .iter()
                            .map(|i| i.as_str().map(str::to_owned))
                            .collect::<Option<Vec<_>>>()
                    });
                    command = Some(items.ok_or_else(|| Error::Config {
                        at: format!("{at}.command"),
                        detail: "expected a list of strings (the program and its arguments)".into(),
                    })?);
                }
                _ => {
                    return Err(Error::Config {
                        at: format!("{at}.{key}"),
                        detail: "unknown option; external takes command".into(),
                    });
                }
            }
        }
        match command {
            Some(command) if !command.is_empty() => Ok(External {
                at,
                command,
                deadline,
            }),
            _ => Err(Error::Config {
                at,
                detail: "the command option is required".into(),
            }),
        }
    }

    fn failure(&self, detail: String, stderr: &[u8]) -> Error {
        Error::KeyProvider {
            provider: self.at.clone(),
            detail,
            stderr: (!stderr.is_empty()).then(|| String::from_utf8_lossy(stderr).into_owned()),
        }
    }

    /// Runs the command with `input` on its standard input; its parsed answer.
    #[allow(
        clippy::too_many_lines,
        reason = "the protocol's steps in order: spawn, feed, wait, check"
    )]
    fn run(&self, input: &str) -> Result<Output, Error> {
        let mut command = Command::new(&self.command[0]);
        command
            .args(&self.command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| self.failure(format!("cannot run {:?}: {e}", self.command[0]), &[]))?;
        let mut stdin = child.stdin.take().expect("stdin was piped");
        let input = input.as_bytes().to_vec();
        // A command that never reads must not block the write: the pipe is fed from a thread.
        thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let (out_tx, out_rx) = mpsc::channel();
        let (err_tx, err_rx) = mpsc::channel();
        let mut stdout = child.stdout.take().expect("stdout was piped");
        let mut stderr = child.stderr.take().expect("stderr was piped");
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stdout.read_to_end(&mut buf);
            let _ = out_tx.send(buf);
        });
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stderr.read_to_end(&mut buf);
            let _ = err_tx.send(buf);
        });
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if started.elapsed() >= self.deadline => {
                    kill(&mut child);
                    let stderr = err_rx
                        .recv_timeout(Duration::from_millis(200))
                        .unwrap_or_default();
                    return Err(self.failure(
                        format!(
                            "the external command did not finish within {} s and was stopped",
                            self.deadline.as_secs_f64()
                        ),
                        &stderr,
                    ));
                }
                Ok(None) => thread::sleep(Duration::from_millis(5)),
                Err(e) => {
                    return Err(self.failure(format!("waiting for the command failed: {e}"), &[]));
                }
            }
        };
        // The command has exited; what it started may still hold the pipes, so the reads get
        // what is left of the deadline and no more.
        let left = self
            .deadline
            .saturating_sub(started.elapsed())
            .max(Duration::from_millis(200));
        let stdout = out_rx.recv_timeout(left).unwrap_or_default();
        let stderr = err_rx
            .recv_timeout(Duration::from_millis(200))
            .unwrap_or_default();
        if !status.success() {
            return Err(self.failure(
                format!("the external command exited with {status}"),
                &stderr,
            ));
        }
        let text = String::from_utf8_lossy(&stdout);
        let Some((header, body)) = text.split_once('\n') else {
            return Err(self.failure(
                "the external command printed no header line".into(),
                &stderr,
            ));
        };
        let header: Header = serde_json::from_str(header).map_err(|e| {
            self.failure(
                format!("the external command's header line is not the protocol's JSON ({e})"),
                &stderr,
            )
        })?;
        if header.magic != MAGIC {
            return Err(self.failure(
                format!(
                    "invalid magic {:?} in the external command's header; expected {MAGIC:?}",
                    header.magic
                ),
                &stderr,
            ));
        }
        if header.version != 1 {
            return Err(self.failure(
                format!(
                    "the external command speaks protocol version {}; only 1 is known",
                    header.version
                ),
                &stderr,
            ));
        }
        // Like Go's Decoder, the first JSON value counts; what follows it is not read.
        let first = serde_json::Deserializer::from_str(body)
            .into_iter::<Output>()
            .next();
        match first {
            Some(Ok(output)) => Ok(output),
            // Never quote the answer: it holds the keys.
            Some(Err(e)) => Err(self.failure(
                format!(
                    "the external command returned an invalid JSON response ({})",
                    e.classify_name()
                ),
                &stderr,
            )),
            None => Err(self.failure("the external command returned no response".into(), &stderr)),
        }
    }

    fn key(&self, which: &str, text: &str) -> Result<Secret, Error> {
        decode_base64(text.as_bytes())
            .map(Secret::key)
            .map_err(|_| Error::KeyProvider {
                provider: self.at.clone(),
                detail: format!("the external command's {which} is not valid base64"),
                stderr: None,
            })
    }
}

trait ClassifyName {
    fn classify_name(&self) -> String;
}

impl ClassifyName for serde_json::Error {
    /// The error without serde's echo of the offending value (which may be a key).
    fn classify_name(&self) -> String {
        let text = self.to_string();
        if text.starts_with("unknown field") {
            let field = text.split('`').nth(1).unwrap_or("?");
            return format!("unknown field {field:?}");
        }
        match self.classify() {
            serde_json::error::Category::Data => format!(
                "unexpected shape at line {}, column {}",
                self.line(),
                self.column()
            ),
            serde_json::error::Category::Eof => "it ends early".into(),
            _ => format!(
                "malformed at line {}, column {}",
                self.line(),
                self.column()
            ),
        }
    }
}

#[cfg(unix)]
fn kill(child: &mut std::process::Child) {
    // The command runs in its own process group: a shell script's children go with it, and
    // release the pipes.
    if let Some(pid) = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(not(unix))]
fn kill(child: &mut std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

impl KeyProvider for External {
    fn encryption_key(&self, _upstream: Option<&Secret>) -> Result<(Secret, Vec<u8>), Error> {
        let output = self.run("null")?;
        let Some(encryption_key) = output.keys.encryption_key.as_deref() else {
            return Err(self.failure(
                "the external command returned no encryption_key".into(),
                &[],
            ));
        };
        let key = self.key("encryption_key", encryption_key)?;
        Ok((
            key,
            marshal_meta(output.meta.external_data.as_ref()).into_bytes(),
        ))
    }

    fn decryption_key(
        &self,
        stored: &[u8],
        _upstream: Option<&Secret>,
    ) -> Result<Option<Secret>, Error> {
        let stored: Value = serde_json::from_slice(stored).map_err(|e| Error::InvalidMetadata {
            provider: self.at.clone(),
            detail: format!("not JSON ({e})"),
        })?;
        let external_data = match &stored {
            Value::Null => None,
            Value::Object(map) => map.get("external_data").filter(|v| !v.is_null()),
            _ => {
                return Err(Error::InvalidMetadata {
                    provider: self.at.clone(),
                    detail: "expected an object with external_data".into(),
                });
            }
        };
        // OpenTofu sends `null` when there is no external data, else the re-marshalled metadata.
        let input = match external_data {
            None => "null".to_owned(),
            Some(data) => marshal_meta(Some(data)),
        };
        let output = self.run(&input)?;
        match output.keys.decryption_key.as_deref() {
            None | Some("") => Ok(None),
            Some(text) => self.key("decryption_key", text).map(Some),
        }
    }
}
