//! moto's server (scripts/install-moto.sh) on a free loopback port, shared by the tests that need
//! AWS on loopback (the plugin stack, the S3 backend): started per test, killed when dropped, with
//! boto3 from moto's own venv to arrange what a test needs behind everyone's back. The tools these
//! tests need are found by `crate::skip::require_tool`: a missing one skips the test, except under CI, where it fails.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// moto's server, from `STATECTL_MOTO_SERVER` or scripts/install-moto.sh's place.
pub(crate) fn moto_server() -> Option<PathBuf> {
    crate::skip::require_installed("STATECTL_MOTO_SERVER", "target/moto/venv/bin/moto_server")
}

/// moto's server on a free loopback port; killed when dropped.
#[derive(Debug)]
pub(crate) struct Moto {
    child: Child,
    port: u16,
    python: PathBuf,
}

impl Moto {
    /// Starts the server; its log goes to `folder/moto.log`.
    pub(crate) fn start(server: &Path, folder: &Path) -> Moto {
        let port = crate::processes::free_port();
        let log = std::fs::File::create(folder.join("moto.log")).unwrap();
        let child = Command::new(server)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        crate::processes::wait_for_port(port, "moto");
        Moto {
            child,
            port,
            python: server.with_file_name("python"),
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Runs `script` with boto3 from moto's venv; `client('s3')` makes a client of this server.
    /// Returns what the script printed.
    pub(crate) fn python(&self, script: &str) -> String {
        let prelude = format!(
            "import boto3, json\n\
             def client(service):\n    \
                 return boto3.client(service, endpoint_url='{}', region_name='us-east-1', aws_access_key_id='testing', aws_secret_access_key='testing')\n",
            self.url()
        );
        let output = Command::new(&self.python)
            .args(["-c", &format!("{prelude}{script}")])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "boto3 script failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
