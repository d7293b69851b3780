//! Running a provider plugin as Terraform does: the magic cookie, the protocol versions on offer and a
//! fresh client certificate in the environment (the rest of statectl's environment is inherited, so
//! `AWS_PROFILE`, `TF_LOG` and the like reach the provider), the handshake line read from its standard
//! output, its standard error passed to the `-v` log, then one mutual-TLS gRPC channel.
//!
//! The process is killed when its [`Plugin`] is dropped (an error, a panic, Ctrl-C unwinding the run);
//! [`Plugin::shutdown`] stops it cleanly first, through go-plugin's controller service. A plugin runs
//! in a process group of its own, and whenever it is killed the whole group goes with it: a plugin
//! (or the script standing in for one) may have started processes of its own, which would otherwise
//! be left running, orphaned, after statectl ended.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;
use tonic::transport::Channel;

use crate::duration::humanize;
use crate::reconcile::outcome::excerpt;
use crate::reconcile::plugin::channel::{chain, connect};
use crate::reconcile::plugin::handshake::{Handshake, HandshakeError, PROTOCOL_VERSIONS};
use crate::reconcile::plugin::proto::go_plugin;
use crate::reconcile::plugin::tls::{ClientIdentity, client_config};

/// The handshake Terraform's plugins expect: without it they refuse to run ("This binary is a
/// plugin").
const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
const MAGIC_COOKIE_VALUE: &str = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/// go-plugin's default port range for plugins that listen on TCP (Windows).
const MIN_PORT: &str = "10000";
const MAX_PORT: &str = "25000";

/// How long a plugin may take to print its handshake, unless told otherwise; go-plugin's client
/// waits a minute too.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a plugin has to exit after the controller asked it to, before it is killed; Terraform
/// waits two seconds.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);
/// How many of the plugin's last standard error lines an error quotes.
const STDERR_TAIL: usize = 5;

/// Where the plugin's output goes in the log.
const LOG_TARGET: &str = "statectl::plugin";

/// A running plugin with its gRPC channel.
#[derive(Debug)]
pub struct Plugin {
    /// What the logs and errors call it: the binary's file name.
    pub name: String,
    /// The plugin protocol it chose: 5 or 6.
    pub protocol_version: u32,
    pub channel: Channel,
    /// Before `child`: fields drop in order, and the group is killed while the plugin's own
    /// process is not yet reaped, so its ID cannot have been taken by another.
    group: ProcessGroup,
    child: Child,
}

/// The plugin's process group (its ID is the plugin's process ID), killed whole when dropped.
#[derive(Debug)]
struct ProcessGroup(Option<rustix::process::Pid>);

impl ProcessGroup {
    fn of(child: &Child) -> ProcessGroup {
        ProcessGroup(
            child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .and_then(rustix::process::Pid::from_raw),
        )
    }

    /// Kills every process still in the group. The group's ID stays the plugin's until the last of
    /// them is gone, so this reaches no one else.
    fn kill(&self) {
        if let Some(group) = self.0 {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A plugin that did not start or stop.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("cannot run `{}`: {source}", binary.display())]
    Run {
        binary: PathBuf,
        source: std::io::Error,
    },
    /// What went wrong, how the plugin exited (if it did) and the last lines it wrote to standard
    /// error.
    #[error("{0}")]
    Start(String),
    #[error("waiting for plugin `{name}`: {source}")]
    Wait {
        name: String,
        source: std::io::Error,
    },
    #[error("cannot kill plugin `{name}`: {source}")]
    Kill {
        name: String,
        source: std::io::Error,
    },
}

impl Plugin {
    /// Starts the plugin at `binary` and connects to it, waiting up to [`START_TIMEOUT`] for its
    /// handshake.
    pub async fn launch(binary: &Path) -> Result<Plugin, LaunchError> {
        Plugin::launch_within(binary, START_TIMEOUT).await
    }

    /// [`Plugin::launch`], waiting up to `limit` for the handshake.
    pub async fn launch_within(binary: &Path, limit: Duration) -> Result<Plugin, LaunchError> {
        let name = binary.file_name().map_or_else(
            || binary.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        let identity =
            ClientIdentity::generate().map_err(|error| LaunchError::Start(error.to_string()))?;
        let versions = PROTOCOL_VERSIONS
            .map(|version| version.to_string())
            .join(",");
        let mut child = Command::new(binary)
            .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
            .env("PLUGIN_PROTOCOL_VERSIONS", versions)
            .env("PLUGIN_MIN_PORT", MIN_PORT)
            .env("PLUGIN_MAX_PORT", MAX_PORT)
            .env("PLUGIN_CLIENT_CERT", &identity.certificate_pem)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            // Its own group: a Ctrl-C on the terminal reaches statectl, which ends the plugin with
            // everything it started (and Terraform's plugins ignore the terminal's signals too).
            .process_group(0)
            .spawn()
            .map_err(|source| LaunchError::Run {
                binary: binary.to_owned(),
                source,
            })?;
        let group = ProcessGroup::of(&child);
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_reader = child.stderr.take().map(|stderr| {
            tokio::spawn(forward_stderr(
                stderr,
                name.clone(),
                Arc::clone(&stderr_tail),
            ))
        });
        let mut stderr = StderrTail {
            reader: stderr_reader,
            lines: stderr_tail,
        };
        let Some(stdout) = child.stdout.take() else {
            return Err(LaunchError::Start(
                "the plugin's standard output is not a pipe".into(),
            ));
        };
        let mut stdout = BufReader::new(stdout);
        let handshake = match read_handshake(&mut stdout, limit).await {
            Ok(handshake) => handshake,
            Err(error) => {
                return Err(LaunchError::Start(
                    failed(binary, &error.to_string(), &mut child, &group, &mut stderr).await,
                ));
            }
        };
        tracing::debug!(target: LOG_TARGET, plugin = %name, ?handshake, "plugin started");
        // After the handshake nothing more should come on stdout, but a pipe nobody reads would block
        // a plugin that writes there.
        tokio::spawn(forward_lines(stdout, name.clone(), "stdout", None));
        let tls = client_config(&identity, &handshake.server_certificate)
            .map_err(|error| LaunchError::Start(error.to_string()))?;
        let channel = match connect(&handshake.address, tls).await {
            Ok(channel) => channel,
            Err(error) => {
                return Err(LaunchError::Start(
                    failed(binary, &error.to_string(), &mut child, &group, &mut stderr).await,
                ));
            }
        };
        tokio::spawn(forward_stdio(channel.clone(), name.clone()));
        Ok(Plugin {
            name,
            protocol_version: handshake.protocol_version,
            channel,
            group,
            child,
        })
    }

    /// Kills the plugin at once (one that misbehaved: no clean shutdown is owed) and waits for it
    /// to be gone, so that no process outlives the run.
    pub async fn kill(mut self) {
        self.group.kill();
        if let Err(error) = self.child.kill().await {
            tracing::debug!(target: LOG_TARGET, plugin = %self.name, "killing it: {error}");
        }
    }

    /// Stops the plugin: go-plugin's controller shuts its server down and the process exits; one that
    /// does not within the grace period is killed. Returns how it ended.
    pub async fn shutdown(mut self) -> Result<ExitStatus, LaunchError> {
        let mut controller =
            go_plugin::grpc_controller_client::GrpcControllerClient::new(self.channel.clone());
        // The plugin stops its server while answering, so the call itself may fail; the exit is what
        // counts.
        let asked =
            tokio::time::timeout(SHUTDOWN_GRACE, controller.shutdown(go_plugin::Empty {})).await;
        if let Ok(Err(status)) = &asked {
            tracing::debug!(target: LOG_TARGET, plugin = %self.name, "shutdown call: {}", chain(status));
        }
        match tokio::time::timeout(SHUTDOWN_GRACE, self.child.wait()).await {
            Ok(Ok(status)) => Ok(status),
            Ok(Err(source)) => Err(LaunchError::Wait {
                name: self.name.clone(),
                source,
            }),
            Err(_) => {
                tracing::debug!(target: LOG_TARGET, plugin = %self.name, "still running after shutdown; killing it");
                self.group.kill();
                self.child
                    .kill()
                    .await
                    .map_err(|source| LaunchError::Kill {
                        name: self.name.clone(),
                        source,
                    })?;
                self.child.wait().await.map_err(|source| LaunchError::Wait {
                    name: self.name.clone(),
                    source,
                })
            }
        }
    }
}

/// Why a plugin's first line of output is not a usable handshake.
#[derive(Debug, thiserror::Error)]
enum NoHandshake {
    #[error("it printed no handshake within {}", humanize(*.0))]
    Timeout(Duration),
    #[error("cannot read its output: {0}")]
    Read(#[source] std::io::Error),
    #[error("it closed its output without a handshake")]
    Closed,
    /// `line` is the first line, cut short.
    #[error("its first line `{line}` is not a plugin handshake: {source}")]
    Invalid {
        line: String,
        source: HandshakeError,
    },
}

async fn read_handshake(
    stdout: &mut BufReader<impl AsyncRead + Unpin>,
    limit: Duration,
) -> Result<Handshake, NoHandshake> {
    let mut line = String::new();
    let read = tokio::time::timeout(limit, stdout.read_line(&mut line))
        .await
        .map_err(|_| NoHandshake::Timeout(limit))?
        .map_err(NoHandshake::Read)?;
    if read == 0 {
        return Err(NoHandshake::Closed);
    }
    Handshake::parse(&line).map_err(|source| NoHandshake::Invalid {
        line: excerpt(line.trim_end().as_bytes(), 120),
        source,
    })
}

/// One error for a plugin that did not start: what went wrong, how it exited (if it did) and the last
/// lines it wrote to standard error.
async fn failed(
    binary: &Path,
    error: &str,
    child: &mut Child,
    group: &ProcessGroup,
    stderr: &mut StderrTail,
) -> String {
    // A plugin that printed garbage may still be running: it is of no use now. What it started
    // goes with it, also when it exited itself: its children would hold the pipes open.
    let status = if let Ok(Ok(status)) =
        tokio::time::timeout(Duration::from_millis(500), child.wait()).await
    {
        group.kill();
        Some(status)
    } else {
        group.kill();
        let _ = child.kill().await;
        None
    };
    // The plugin's last words are in the pipe until the reader reaches its end, which comes when the
    // process (and any child holding the pipe) is gone.
    if let Some(reader) = stderr.reader.take() {
        let _ = tokio::time::timeout(Duration::from_millis(500), reader).await;
    }
    let mut message = format!(
        "provider plugin `{}` did not start: {error}",
        binary.display()
    );
    if let Some(status) = status {
        message.push_str(" (");
        message.push_str(&describe(status));
        message.push(')');
    }
    let tail: Vec<String> = stderr
        .lines
        .lock()
        .map(|tail| tail.iter().cloned().collect())
        .unwrap_or_default();
    if !tail.is_empty() {
        message.push_str("; it said: ");
        message.push_str(&tail.join(" / "));
    }
    message
}

/// The task passing the plugin's standard error to the log, and the last lines it saw.
struct StderrTail {
    reader: Option<JoinHandle<()>>,
    lines: Arc<Mutex<VecDeque<String>>>,
}

fn describe(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => format!("{status}"),
    }
}

/// Passes the plugin's standard error to the debug log, keeping the last lines for error messages.
async fn forward_stderr(
    stderr: impl AsyncRead + Unpin,
    name: String,
    tail: Arc<Mutex<VecDeque<String>>>,
) {
    forward_lines(BufReader::new(stderr), name, "stderr", Some(tail)).await;
}

async fn forward_lines(
    mut reader: BufReader<impl AsyncRead + Unpin>,
    name: String,
    stream: &'static str,
    tail: Option<Arc<Mutex<VecDeque<String>>>>,
) {
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = excerpt(trim_line_end(&buffer), 2000);
        tracing::info!(target: LOG_TARGET, plugin = %name, stream, "{line}");
        if let Some(Ok(mut tail)) = tail.as_ref().map(|tail| tail.lock()) {
            if tail.len() == STDERR_TAIL {
                tail.pop_front();
            }
            tail.push_back(excerpt(trim_line_end(&buffer), 200));
        }
    }
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let end = line
        .iter()
        .rposition(|byte| !matches!(byte, b'\n' | b'\r'))
        .map_or(0, |at| at + 1);
    &line[..end]
}

/// Reads go-plugin's stdio stream (what the plugin writes to its redirected standard output and
/// error after the handshake) into the debug log. Plugins without the service just end the stream.
async fn forward_stdio(channel: Channel, name: String) {
    let mut client = go_plugin::grpc_stdio_client::GrpcStdioClient::new(channel);
    let Ok(response) = client.stream_stdio(go_plugin::Empty {}).await else {
        return;
    };
    let mut stream = response.into_inner();
    while let Ok(Some(data)) = stream.message().await {
        let channel = match data.channel() {
            go_plugin::stdio_data::Channel::Stdout => "stdout",
            _ => "stderr",
        };
        for line in data.data.split(|byte| *byte == b'\n') {
            if !line.is_empty() {
                let line = excerpt(trim_line_end(line), 2000);
                tracing::info!(target: LOG_TARGET, plugin = %name, stream = channel, "{line}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A shell script standing in for a plugin.
    /// The error launching a fake plugin, a shell `script` in a folder of its own, ends in.
    async fn launch_error(script: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("terraform-provider-fake");
        std::fs::write(&binary, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
        Plugin::launch(&binary).await.unwrap_err().to_string()
    }

    #[tokio::test]
    async fn a_plugin_that_prints_garbage_is_one_clear_error() {
        let error =
            launch_error("echo 'This binary is a plugin.'; echo 'no cookie here' >&2; exit 1")
                .await;
        assert!(error.starts_with("provider plugin `"), "{error}");
        assert!(
            error.contains(
                "did not start: its first line `This binary is a plugin.` is not a plugin handshake: expected"
            ),
            "{error}"
        );
        assert!(error.contains("(exit status 1)"), "{error}");
        assert!(error.ends_with("it said: no cookie here"), "{error}");
    }

    #[tokio::test]
    async fn a_plugin_that_exits_silently_is_one_clear_error() {
        let error = launch_error("exit 7").await;
        assert!(
            error.ends_with(
                "did not start: it closed its output without a handshake (exit status 7)"
            ),
            "{error}"
        );
    }

    #[tokio::test]
    async fn a_missing_binary_is_named() {
        let error = Plugin::launch(Path::new("/nonexistent/terraform-provider-x"))
            .await
            .unwrap_err();
        assert!(
            matches!(&error, LaunchError::Run { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
        );
        assert!(
            error
                .to_string()
                .starts_with("cannot run `/nonexistent/terraform-provider-x`: "),
            "{error}"
        );
    }

    #[tokio::test]
    async fn the_environment_is_terraforms() {
        // The script echoes what it was given, which then fails as a handshake and shows in the
        // error.
        let error = launch_error(r#"cookie=bad; [ "$TF_PLUGIN_MAGIC_COOKIE" = d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2 ] && cookie=ok
cert=none; case "$PLUGIN_CLIENT_CERT" in "-----BEGIN CERTIFICATE-----"*) cert=pem;; esac
echo "$cookie $cert $PLUGIN_PROTOCOL_VERSIONS $PLUGIN_MIN_PORT-$PLUGIN_MAX_PORT""#).await;
        assert!(
            error.contains("its first line `ok pem 5,6 10000-25000` is not a plugin handshake"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn a_plugin_that_hangs_after_garbage_is_killed() {
        let error = launch_error("echo garbage; exec sleep 600").await;
        assert!(
            error.contains("`garbage` is not a plugin handshake"),
            "{error}"
        );
        assert!(!error.contains("exit status"), "{error}");
    }

    #[test]
    fn trims_line_ends() {
        assert_eq!(trim_line_end(b"abc\r\n"), b"abc");
        assert_eq!(trim_line_end(b"\n"), b"");
        assert_eq!(trim_line_end(b"a\nb"), b"a\nb");
    }
}
