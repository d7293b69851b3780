//! The azurerm backend against Azurite (scripts/install-azurite.sh) on loopback, with Microsoft's
//! Blob SDK for JavaScript as a client that arranges things behind statectl's back: it uploads
//! states, holds a lease with the lock info in the `terraformlockid` metadata as Terraform writes
//! it, and reads back what statectl left (the state, the lease, the metadata, the snapshots).
//! statectl runs through the CLI by URL (`azurerm://devstoreaccount1/tfstate/<blob>`, the emulator
//! named with `--backend-config endpoint=...`): list, taint, workspaces, refused and waiting locks,
//! `statectl lock`, a scan of a prefix, snapshots, SAS tokens, the Azure CLI's login, and the
//! faults, each one line with nothing written and no lease left.
//!
//! Real Terraform 1.15.5 is the other client too. Its azurerm backend has no endpoint argument: it
//! always talks to `https://<account>.blob.core.windows.net`. It does honour `HTTPS_PROXY` and
//! `SSL_CERT_FILE`, so Azurite serves TLS with a test CA, and a loopback CONNECT proxy tunnels the
//! account's host to it; statectl, from the backend cache Terraform wrote, derives the same URL
//! and goes the same way. Without Azurite (or Terraform) these tests skip, except under CI, where
//! they fail.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::builder::{Output, Test, assert_contains, assert_starts_with, root};
use crate::files::{file_names, folder_with, write_script};
use crate::skip::require_installed;
use crate::workdir::{Served, TerraformWorkdir, Workdir, assert_prefix_scan, cancel_statectl_lock};

const ACCOUNT: &str = "devstoreaccount1";
/// Azurite's well-known development key (public, in Azurite's documentation).
const KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const CONTAINER: &str = "tfstate";
/// A lock ID in the lease ID's form (a GUID), as Terraform's are.
const TERRAFORM_LOCK_ID: &str = "8c6b1b7e-0f0b-4a8e-9d55-7a3b1f0c2d11";

/// Azurite's blob service, from `STATECTL_AZURITE` or scripts/install-azurite.sh's place.
fn azurite_blob() -> Option<PathBuf> {
    require_installed(
        "STATECTL_AZURITE",
        "target/azurite/node_modules/.bin/azurite-blob",
    )
}

/// Azurite on a free loopback port with container `tfstate`; killed when dropped.
pub(crate) struct Azurite {
    child: Child,
    pub(crate) port: u16,
    /// Azurite's `node_modules`, where the Blob SDK is too.
    modules: PathBuf,
    folder: tempfile::TempDir,
    account: String,
    key: String,
    /// With TLS: the CA that signed its certificate.
    tls: Option<PathBuf>,
}

/// A CA and a certificate signed by it for `names`, in a folder: `ca.pem`, `cert.pem`, `key.pem`.
pub(crate) fn pki(names: &[&str]) -> tempfile::TempDir {
    let ca = statectl_sim::TestCa::new("statectl test CA").unwrap();
    let server = ca.server(names).unwrap();
    let folder = folder_with("ca.pem", ca.pem());
    std::fs::write(folder.path().join("cert.pem"), &server.certificate).unwrap();
    std::fs::write(folder.path().join("key.pem"), &server.key).unwrap();
    folder
}

impl Azurite {
    /// Azurite over http with its well-known account.
    fn start() -> Option<Azurite> {
        Azurite::start_with(ACCOUNT, KEY, None, false)
    }

    /// Azurite serving `account` with `key` (`AZURITE_ACCOUNTS`), over https with the certificate
    /// in `tls` (from [`pki`]) when given; with `oauth`, bearer tokens are checked too (their
    /// issuer, audience and lifetime: Azurite's `--oauth basic`, over https only).
    pub(crate) fn start_with(
        account: &str,
        key: &str,
        tls: Option<&Path>,
        oauth: bool,
    ) -> Option<Azurite> {
        let binary = azurite_blob()?;
        let modules = binary
            .parent()
            .and_then(Path::parent)
            .expect("azurite-blob lies in node_modules/.bin")
            .to_owned();
        let folder = tempfile::tempdir().unwrap();
        let port = crate::processes::free_port();
        let log = std::fs::File::create(folder.path().join("azurite.log")).unwrap();
        let mut command = Command::new(&binary);
        command
            .args(["--blobHost", "127.0.0.1", "--blobPort", &port.to_string()])
            // The SDK speaks a newer service version than this Azurite knows; statectl pins
            // 2023-11-03, which it does.
            .args([
                "--inMemoryPersistence",
                "--disableTelemetry",
                "--skipApiVersionCheck",
            ])
            .current_dir(folder.path())
            .stdout(Stdio::null())
            .stderr(log);
        if account != ACCOUNT {
            command.env("AZURITE_ACCOUNTS", format!("{account}:{key}"));
        }
        if let Some(tls) = tls {
            command.arg("--cert").arg(tls.join("cert.pem"));
            command.arg("--key").arg(tls.join("key.pem"));
        }
        if oauth {
            command.args(["--oauth", "basic"]);
        }
        let child = command.spawn().unwrap();
        let azurite = Azurite {
            child,
            port,
            modules,
            folder,
            account: account.to_owned(),
            key: key.to_owned(),
            tls: tls.map(|tls| tls.join("ca.pem")),
        };
        crate::processes::wait_for_port(port, "Azurite");
        azurite.node(&format!(
            "await service.getContainerClient('{CONTAINER}').create();"
        ));
        Some(azurite)
    }

    fn endpoint(&self) -> String {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}/{}", self.port, self.account)
    }

    fn path(&self) -> &Path {
        self.folder.path()
    }

    /// Runs `body` (async JavaScript) with `service` and `container` clients of this Azurite (Shared
    /// Key) in scope; returns what it printed.
    pub(crate) fn node(&self, body: &str) -> String {
        let script = format!(
            "const sdk = require('@azure/storage-blob');\n\
             const service = new sdk.BlobServiceClient('{}', new sdk.StorageSharedKeyCredential('{}', '{}'));\n\
             const container = service.getContainerClient('{CONTAINER}');\n\
             (async () => {{ {body} }})().catch((e) => {{ console.error(e.code || '', e.message); process.exit(1); }});\n",
            self.endpoint(),
            self.account,
            self.key
        );
        let mut command = Command::new("node");
        command
            .args(["-e", &script])
            .env("NODE_PATH", &self.modules)
            .stdin(Stdio::null());
        if let Some(ca) = &self.tls {
            command.env("NODE_EXTRA_CA_CERTS", ca);
        }
        let output = command.output().expect("node runs");
        assert!(
            output.status.success(),
            "node: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// Uploads `file` as `blob`, as Terraform's Put does (a block blob, `application/json`).
    fn upload(&self, blob: &str, file: &Path) {
        self.node(&format!(
            "await container.getBlockBlobClient({blob:?}).uploadFile({:?}, {{ blobHTTPHeaders: {{ blobContentType: 'application/json' }} }});",
            file.display().to_string()
        ));
    }

    fn download(&self, blob: &str) -> String {
        self.node(&format!(
            "process.stdout.write((await container.getBlobClient({blob:?}).downloadToBuffer()).toString());"
        ))
    }

    /// The blob's lease state and status, its metadata, and how many snapshots it has.
    fn properties(&self, blob: &str) -> Value {
        let json = self.node(&format!(
            "const p = await container.getBlobClient({blob:?}).getProperties();\n\
             let snapshots = 0;\n\
             for await (const item of container.listBlobsFlat({{ prefix: {blob:?}, includeSnapshots: true }})) {{ if (item.name === {blob:?} && item.snapshot) snapshots++; }}\n\
             console.log(JSON.stringify({{ lease: p.leaseState, status: p.leaseStatus, metadata: p.metadata, snapshots }}));"
        ));
        serde_json::from_str(&json).unwrap()
    }

    /// The lock info in `blob`'s metadata, decoded.
    fn lock_info(&self, blob: &str) -> Option<Value> {
        let properties = self.properties(blob);
        let raw = properties["metadata"]["terraformlockid"].as_str()?;
        let json = self.node(&format!(
            "process.stdout.write(Buffer.from({raw:?}, 'base64').toString());"
        ));
        Some(serde_json::from_str(&json).unwrap())
    }

    /// Takes a lease on `blob` as Terraform 1.15.5's apply does: the lock ID as the proposed lease
    /// ID, no expiry, the lock info (Go's `json.Marshal` of it) base64 in `terraformlockid`.
    fn hold_as_terraform(&self, blob: &str) {
        let info = format!(
            r#"{{"ID":"{TERRAFORM_LOCK_ID}","Operation":"OperationTypeApply","Info":"","Who":"ci@runner-7","Version":"1.15.5","Created":"2026-11-22T07:00:00.123456789Z","Path":"{CONTAINER}/{blob}"}}"#
        );
        self.node(&format!(
            "const b = container.getBlobClient({blob:?});\n\
             await b.getBlobLeaseClient('{TERRAFORM_LOCK_ID}').acquireLease(-1);\n\
             await b.setMetadata({{ terraformlockid: Buffer.from({info:?}).toString('base64') }}, {{ conditions: {{ leaseId: '{TERRAFORM_LOCK_ID}' }} }});"
        ));
    }

    /// Terraform's Unlock: the metadata cleared, the lease released.
    fn release_as_terraform(&self, blob: &str) {
        self.node(&format!(
            "const b = container.getBlobClient({blob:?});\n\
             await b.setMetadata({{}}, {{ conditions: {{ leaseId: '{TERRAFORM_LOCK_ID}' }} }});\n\
             await b.getBlobLeaseClient('{TERRAFORM_LOCK_ID}').releaseLease();"
        ));
    }

    /// `statectl <args>` against this Azurite, the key from ARM_ACCESS_KEY.
    fn statectl(&self, args: &[&str]) -> Test {
        Test::new()
            .current_dir(self.path())
            .args(args)
            .backend_config(format!("endpoint={}", self.endpoint()))
            .env("ARM_ACCESS_KEY", &self.key)
            .env("USER", "statectl-e2e")
    }
}

impl Drop for Azurite {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn url(blob: &str) -> String {
    format!("azurerm://{ACCOUNT}/{CONTAINER}/{blob}")
}

fn modules_state() -> PathBuf {
    root().join("testdata/states/modules.tfstate")
}

/// What `statectl list` prints for the local copy of a state.
fn listed_locally(file: &Path) -> String {
    Test::new().arg("list").arg(file).run().code(0).stdout
}

fn backups(folder: &Path) -> Vec<String> {
    file_names(folder)
        .into_iter()
        .filter(|name| name.ends_with(".backup"))
        .collect()
}

/// The first resource instance `statectl list` names in `listing`.
/// Azurite (when it is installed) holding `modules.tfstate` as `blob`; that state's file, and the
/// first address it lists.
fn azurite_holding_modules(blob: &str) -> Option<(Azurite, PathBuf, String)> {
    let azurite = Azurite::start()?;
    let state = modules_state();
    azurite.upload(blob, &state);
    let address = first_address(&listed_locally(&state));
    Some((azurite, state, address))
}

fn first_address(listing: &str) -> String {
    listing.lines().next().unwrap().to_owned()
}

#[test]
fn statectl_lists_and_taints_an_azurerm_state_under_a_lease_it_releases() {
    let Some((azurite, state, _)) = azurite_holding_modules("team/prod.tfstate") else {
        return;
    };
    let expected = listed_locally(&state);

    let listed = azurite
        .statectl(&["list", &url("team/prod.tfstate")])
        .run()
        .code(0);
    assert_eq!(listed.stdout, expected);
    assert_eq!(
        listed.stderr,
        format!("state {} (backend \"azurerm\")\n", url("team/prod.tfstate"))
    );
    assert!(!listed.stderr.contains(KEY));

    let address = first_address(&expected);
    azurite
        .statectl(&["taint", &address, &url("team/prod.tfstate")])
        .run()
        .code(0);
    let written: Value = serde_json::from_str(&azurite.download("team/prod.tfstate")).unwrap();
    let before: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(written["serial"], before["serial"].as_u64().unwrap() + 1);
    assert_eq!(written["lineage"], before["lineage"]);
    assert!(
        written.to_string().contains("\"status\":\"tainted\""),
        "{written}"
    );
    let properties = azurite.properties("team/prod.tfstate");
    assert_eq!(properties["lease"], "available", "the lease was released");
    assert_eq!(properties["status"], "unlocked");
    assert_eq!(
        properties["metadata"],
        serde_json::json!({}),
        "the lock info was cleared"
    );
    assert_eq!(properties["snapshots"], 0, "no snapshot unless asked");
    let backups = backups(azurite.path());
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert!(backups[0].starts_with("prod.tfstate."), "{backups:?}");
    assert_eq!(
        std::fs::read(azurite.path().join(&backups[0])).unwrap(),
        std::fs::read(&state).unwrap(),
        "the backup holds the old bytes"
    );
}

#[test]
fn snapshot_true_snapshots_the_blob_before_each_write_and_workspaces_are_key_env_name() {
    let Some((azurite, state, address)) = azurite_holding_modules("prod.tfstateenv:dev") else {
        return;
    };

    // `--workspace dev` of key prod.tfstate is blob `prod.tfstateenv:dev`, as Terraform names it.
    let listed = azurite
        .statectl(&["list", &url("prod.tfstate"), "--workspace", "dev"])
        .run()
        .code(0);
    assert_eq!(
        listed.stderr,
        format!(
            "state {} (backend \"azurerm\")\n",
            url("prod.tfstateenv:dev")
        )
    );
    azurite
        .statectl(&[
            "taint",
            &address,
            &url("prod.tfstate"),
            "--workspace",
            "dev",
        ])
        .backend_config("snapshot=true")
        .run()
        .code(0);
    let properties = azurite.properties("prod.tfstateenv:dev");
    assert_eq!(properties["snapshots"], 1, "{properties}");
    assert_eq!(properties["lease"], "available");
    // The snapshot holds the state as it was before the write.
    let snapshot = azurite.node(
        "for await (const item of container.listBlobsFlat({ prefix: 'prod.tfstateenv:dev', includeSnapshots: true })) {\n\
           if (item.snapshot) process.stdout.write((await container.getBlobClient(item.name).withSnapshot(item.snapshot).downloadToBuffer()).toString());\n\
         }",
    );
    assert_eq!(snapshot, std::fs::read_to_string(&state).unwrap());
    // ARM_SNAPSHOT says the same as the argument.
    azurite
        .statectl(&[
            "untaint",
            &address,
            &url("prod.tfstate"),
            "--workspace",
            "dev",
        ])
        .env("ARM_SNAPSHOT", "true")
        .run()
        .code(0);
    assert_eq!(azurite.properties("prod.tfstateenv:dev")["snapshots"], 2);
}

#[test]
fn a_lease_terraform_holds_is_refused_naming_it_then_waited_for() {
    let Some((azurite, state, address)) = azurite_holding_modules("prod.tfstate") else {
        return;
    };
    azurite.hold_as_terraform("prod.tfstate");

    let refused = azurite
        .statectl(&["taint", &address, &url("prod.tfstate")])
        .run()
        .refused(&format!(
            "error: {}: the state is locked by `ci@runner-7` (Terraform 1.15.5, operation `OperationTypeApply`, since 2026-11-22T07:00:00.123456789Z, lock ID {TERRAFORM_LOCK_ID})\nhint: wait for that run to finish, or add `--lock-timeout 60s` to wait for it\n",
            url("prod.tfstate")
        ));
    assert_eq!(refused.stdout, "");
    assert_eq!(
        azurite.download("prod.tfstate"),
        std::fs::read_to_string(&state).unwrap(),
        "nothing written"
    );
    assert_eq!(
        azurite.lock_info("prod.tfstate").unwrap()["ID"],
        TERRAFORM_LOCK_ID,
        "Terraform's lock is untouched"
    );

    // Waiting: the taint goes through once Terraform lets the lease go.
    let waiting = std::thread::spawn({
        let test = azurite.statectl(&[
            "taint",
            &address,
            &url("prod.tfstate"),
            "--lock-timeout",
            "30s",
        ]);
        move || test.run()
    });
    std::thread::sleep(Duration::from_millis(1500));
    azurite.release_as_terraform("prod.tfstate");
    waiting.join().unwrap().code(0);
    assert!(
        azurite
            .download("prod.tfstate")
            .contains("\"status\": \"tainted\"")
    );
    assert_eq!(azurite.properties("prod.tfstate")["lease"], "available");
}

#[test]
fn a_lease_without_lock_info_is_refused_without_a_name() {
    let Some((azurite, _, address)) = azurite_holding_modules("prod.tfstate") else {
        return;
    };
    // Another tool's lease: no lock info in the metadata.
    azurite.node(&format!(
        "await container.getBlobClient('prod.tfstate').getBlobLeaseClient('{TERRAFORM_LOCK_ID}').acquireLease(-1);"
    ));
    azurite
        .statectl(&["taint", &address, &url("prod.tfstate")])
        .run()
        .refused(&format!(
            "error: {}: the state is locked by another process (its lock info could not be read)\nhint: wait for that run to finish, or add `--lock-timeout 60s` to wait for it\n",
            url("prod.tfstate")
        ));
}

#[test]
fn statectl_lock_holds_the_lease_with_its_lock_info_until_the_command_ends() {
    let Some((azurite, ..)) = azurite_holding_modules("prod.tfstate") else {
        return;
    };
    let mut holder = Command::new(env!("CARGO_BIN_EXE_statectl"))
        .args(["lock", &url("prod.tfstate"), "--backend-config"])
        .arg(format!("endpoint={}", azurite.endpoint()))
        .args(["--", "sleep", "30"])
        .current_dir(azurite.path())
        .env("ARM_ACCESS_KEY", KEY)
        .env("USER", "statectl-e2e")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("statectl starts");
    let deadline = Instant::now() + Duration::from_secs(30);
    while azurite.properties("prod.tfstate")["lease"] != "leased" {
        assert!(
            Instant::now() < deadline,
            "statectl lock never took the lease"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let info = azurite
        .lock_info("prod.tfstate")
        .expect("lock info in the metadata");
    assert_eq!(info["Path"], "tfstate/prod.tfstate", "{info}");
    assert_eq!(info["Operation"], "statectl lock");
    assert!(
        info["Who"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}@", crate::workdir::account_name())),
        "{info}"
    );
    // Another client's lease request is refused while statectl holds it.
    let other = azurite.node(
        "try { await container.getBlobClient('prod.tfstate').getBlobLeaseClient('00000000-0000-0000-0000-000000000001').acquireLease(-1); console.log('taken'); }\n\
         catch (e) { console.log(e.statusCode, e.details && e.details.errorCode); }",
    );
    assert_eq!(other.trim(), "409 LeaseAlreadyPresent");
    // The lease's ID is the lock ID.
    let broken = azurite.node(&format!(
        "try {{ await container.getBlobClient('prod.tfstate').getBlobLeaseClient({:?}).renewLease(); console.log('ours'); }} catch (e) {{ console.log(e.statusCode); }}",
        info["ID"].as_str().unwrap()
    ));
    assert_eq!(broken.trim(), "ours");
    let _ = holder.kill();
    let _ = holder.wait();
    let _ = holder.stderr.take();
}

#[test]
fn statectl_lock_releases_the_lease_when_its_command_ends() {
    let Some((azurite, ..)) = azurite_holding_modules("prod.tfstate") else {
        return;
    };
    azurite
        .statectl(&["lock", &url("prod.tfstate")])
        .args(["--", "sh", "-c", "echo locked"])
        .run()
        .code(0)
        .stdout_contains("locked");
    let properties = azurite.properties("prod.tfstate");
    assert_eq!(properties["lease"], "available");
    assert_eq!(properties["metadata"], serde_json::json!({}));
}

#[test]
fn a_missing_blob_is_no_state_and_a_write_leaves_it_empty_and_unleased_as_terraform_does() {
    let Some(azurite) = Azurite::start() else {
        return;
    };
    azurite
        .statectl(&["list", &url("absent.tfstate")])
        .run()
        .refused(&format!(
            "error: {}: there is no state there\nhint: check the storage account, container and key (another workspace's state is `<key>env:<workspace>`); `terraform workspace list` shows the workspaces\n",
            url("absent.tfstate")
        ));
    // A taint locks before it reads, and Terraform's lock creates the blob empty to lease it: the
    // blob is left empty, unleased, without lock info, and still reads as no state.
    azurite
        .statectl(&["taint", "null_resource.x", &url("absent.tfstate")])
        .run()
        .code(2)
        .stderr_contains("there is no state there");
    let properties = azurite.properties("absent.tfstate");
    assert_eq!(properties["lease"], "available", "no lease left");
    assert_eq!(properties["metadata"], serde_json::json!({}));
    assert_eq!(azurite.download("absent.tfstate"), "");
    azurite
        .statectl(&["list", &url("absent.tfstate")])
        .run()
        .code(2)
        .stderr_contains("there is no state there");
}

#[test]
fn a_prefix_scans_every_blob_below_it_in_one_report() {
    let Some(azurite) = Azurite::start() else {
        return;
    };
    let scan = root().join("testdata/scan");
    azurite.upload("org/network.tfstate", &scan.join("clean.tfstate"));
    azurite.upload(
        "org/network.tfstateenv:staging",
        &scan.join("cf-tainted-in-progress.tfstate"),
    );
    azurite.upload("org/notes/readme.txt", &root().join("README.md"));
    azurite.upload("other/terraform.tfstate", &scan.join("clean.tfstate"));
    // A lock on a workspace with no state yet leaves its blob empty (as Terraform's does): the
    // scan skips it with a note, where it used to be an unreadable state (exit 2).
    azurite
        .statectl(&["taint", "null_resource.x", &url("org/ci.tfstate")])
        .run()
        .code(2);
    assert_eq!(azurite.download("org/ci.tfstate"), "");
    let run = |extra: &[&str]| {
        azurite
            .statectl(&[
                "scan",
                &format!("azurerm://{ACCOUNT}/{CONTAINER}/org/"),
                "--format",
                "json",
            ])
            .args(extra)
            .run()
    };
    assert_prefix_scan(
        &run(&[]),
        &[
            url("org/network.tfstate").as_str(),
            url("org/network.tfstateenv:staging").as_str(),
            url("org/notes/readme.txt").as_str(),
        ],
        &format!(
            "4 states under azurerm://devstoreaccount1/tfstate/org/\nskipped 1 empty object (no state yet, as Terraform reads them): {}\n",
            url("org/ci.tfstate")
        ),
        &run(&["--include", "org/*.tfstateenv:*"]),
        None,
    );
}

/// A SAS token for the container with `permissions`, made by the SDK with the account key.
fn sas(azurite: &Azurite, permissions: &str) -> String {
    azurite
        .node(&format!(
            "const url = await container.generateSasUrl({{ permissions: sdk.ContainerSASPermissions.parse('{permissions}'), expiresOn: new Date(Date.now() + 3600e3) }});\n\
             console.log(url.split('?')[1]);"
        ))
        .trim()
        .to_owned()
}

#[test]
fn a_sas_token_reads_and_writes_and_a_read_only_one_is_refused_with_nothing_left() {
    let Some((azurite, _, address)) = azurite_holding_modules("prod.tfstate") else {
        return;
    };
    let run = |token: &str, args: &[&str]| {
        Test::new()
            .current_dir(azurite.path())
            .args(args)
            .backend_config(format!("endpoint={}", azurite.endpoint()))
            .env("ARM_SAS_TOKEN", token)
            .run()
    };
    let full = sas(&azurite, "racwdl");
    run(&full, &["taint", &address, &url("prod.tfstate")]).code(0);
    assert!(azurite.download("prod.tfstate").contains("tainted"));

    let read_only = sas(&azurite, "rl");
    let refused = run(&read_only, &["untaint", &address, &url("prod.tfstate")]).code(2);
    assert_starts_with(
        &refused.stderr,
        &format!(
            "error: {}: cannot lock the state: Lease Blob (acquire) answered 403 Forbidden (AuthorizationPermissionMismatch): the credentials are not allowed to do this\nhint: the SAS token needs",
            url("prod.tfstate")
        ),
    );
    assert_eq!(refused.stderr.lines().count(), 2, "{}", refused.stderr);
    let signature = read_only.split("sig=").nth(1).unwrap();
    assert!(!refused.stderr.contains(signature), "no SAS in messages");
    assert_eq!(azurite.properties("prod.tfstate")["lease"], "available");
    assert!(
        azurite.download("prod.tfstate").contains("tainted"),
        "nothing written"
    );
}

#[test]
fn faults_are_one_line_each_and_bounded() {
    let Some((azurite, ..)) = azurite_holding_modules("prod.tfstate") else {
        return;
    };
    let endpoint = format!("endpoint={}", azurite.endpoint());

    // A container that does not exist.
    azurite
        .statectl(&["list", &format!("azurerm://{ACCOUNT}/missing/prod.tfstate")])
        .run()
        .refused(&format!(
            "error: azurerm://{ACCOUNT}/missing/prod.tfstate: cannot read the state: Get Blob answered 404 Not Found (ContainerNotFound): storage account `{ACCOUNT}` has no container `missing`\nhint: check `container_name`; Terraform does not create the container either\n"
        ));

    // A wrong key: refused, and neither key printed.
    let wrong = "d3Jvbmcta2V5LW5ldmVyLXByaW50ZWQ=";
    let refused = Test::new()
        .current_dir(azurite.path())
        .args(["list", &url("prod.tfstate"), "--backend-config", &endpoint])
        .backend_config(format!("access_key={wrong}"))
        .run()
        .code(2);
    // Azurite answers a signature that does not verify with AuthorizationFailure (Azure itself
    // with AuthenticationFailed, worded alike).
    assert_eq!(
        refused.stderr,
        format!(
            "error: {}: cannot read the state: Get Blob answered 403 Forbidden (AuthorizationFailure): the storage account refused the request (the credentials, or its network rules)\nhint: check `access_key` (or ARM_ACCESS_KEY): it must be one of the storage account's two keys\n",
            url("prod.tfstate")
        )
    );
    assert_eq!(refused.stderr.lines().count(), 2, "{}", refused.stderr);
    assert!(!refused.stderr.contains(wrong) && !refused.stderr.contains(KEY));

    // An account the endpoint does not serve.
    Test::new()
        .current_dir(azurite.path())
        .args(["list", "azurerm://nosuchaccount/tfstate/prod.tfstate"])
        .backend_config(format!("endpoint=http://127.0.0.1:{}/nosuchaccount", azurite.port))
        .env("ARM_ACCESS_KEY", KEY)
        .run()
        .refused("error: azurerm://nosuchaccount/tfstate/prod.tfstate: cannot read the state: Get Blob answered 404 Not Found (ResourceNotFound): no storage account `nosuchaccount` answers there\nhint: check `storage_account_name`\n");

    // No credential at all: Terraform's own complaint.
    Test::new()
        .current_dir(azurite.path())
        .args(["list", &url("prod.tfstate"), "--backend-config", &endpoint])
        .run()
        .refused(&format!(
            "error: {}: backend \"azurerm\": one of `access_key`, `sas_token`, `use_azuread_auth` and `resource_group_name` must be set\nhint: Terraform asks the same; for example `--backend-config access_key=...` or set ARM_ACCESS_KEY\n",
            url("prod.tfstate")
        ));

    // An endpoint that is down: bounded.
    let dead = format!("{}/{ACCOUNT}", crate::processes::refusing_url());
    let started = Instant::now();
    let down = azurite
        .statectl(&["taint", "x.y", &url("prod.tfstate")])
        .backend_config(format!("endpoint={dead}"))
        .run()
        .code(2);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_starts_with(
        &down.stderr,
        &format!(
            "error: {}: cannot lock the state: Get Blob Properties got no answer from the Blob service at {dead}/: ",
            url("prod.tfstate")
        ),
    );
    assert_eq!(down.stderr.lines().count(), 2, "{}", down.stderr);

    // An endpoint that takes the connection and says nothing: bounded too.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let quiet = format!("http://{}/{ACCOUNT}", silent.local_addr().unwrap());
    let started = Instant::now();
    let output: Output = azurite
        .statectl(&["list", &url("prod.tfstate")])
        .backend_config(format!("endpoint={quiet}"))
        .run()
        .code(2);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(25), "{took:?}");
    assert_contains(
        &output.stderr,
        "cannot read the state: Get Blob got no answer from the Blob service at",
    );
    drop(silent);
    assert_eq!(azurite.properties("prod.tfstate")["lease"], "available");
}

/// A one-request Blob service stub: answers a GET with `body` and hands back the request's head.
fn blob_stub(body: &'static [u8]) -> (String, std::thread::JoinHandle<String>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}/acct", listener.local_addr().unwrap());
    let served = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        let mut stream = reader.into_inner();
        write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .unwrap();
        stream.write_all(body).unwrap();
        head
    });
    (endpoint, served)
}

/// `use_azuread_auth = true` with nothing but the Azure CLI's login: the token `az account
/// get-access-token --resource https://storage.azure.com/` prints goes to the Blob service as a
/// bearer token (a stub here: Azurite takes bearer tokens only over https); a CLI with no login is
/// one line.
#[test]
fn the_azure_cli_login_is_a_bearer_token_for_storage() {
    let bin = tempfile::tempdir().unwrap();
    let az = bin.path().join("az");
    write_script(
        &az,
        format!(
            "#!/bin/sh\nprintf '%s ' \"$@\" > {}/args\n[ -e {}/logged-out ] && {{ echo \"ERROR: Please run 'az login' to setup account.\" >&2; exit 1; }}\necho '{{\"accessToken\": \"tok-from-cli\", \"expiresOn\": \"2030-01-01 00:00:00.000000\", \"subscription\": \"sub-1\", \"tenant\": \"t-1\", \"tokenType\": \"Bearer\"}}'\n",
            bin.path().display(),
            bin.path().display()
        ),
    );
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let state = std::fs::read(modules_state()).unwrap().leak();
    let (endpoint, served) = blob_stub(state);
    let run = |endpoint: &str| {
        Test::new()
            .args(["list", "azurerm://acct/tfstate/prod.tfstate"])
            .backend_config(format!("endpoint={endpoint}"))
            .env("ARM_USE_AZUREAD", "true")
            .env("PATH", &path)
            .run()
    };
    let listed = run(&endpoint).code(0);
    assert_eq!(listed.stdout, listed_locally(&modules_state()));
    let head = served.join().unwrap().to_ascii_lowercase();
    assert_starts_with(&head, "get /acct/tfstate/prod.tfstate http/1.1\r\n");
    assert_contains(&head, "\r\nauthorization: bearer tok-from-cli\r\n");
    assert_contains(&head, "\r\nx-ms-version: 2023-11-03\r\n");
    assert_eq!(
        std::fs::read_to_string(bin.path().join("args")).unwrap(),
        "account get-access-token --resource https://storage.azure.com/ -o json "
    );

    std::fs::write(bin.path().join("logged-out"), "").unwrap();
    run("http://127.0.0.1:9/acct").refused(
        "error: azurerm://acct/tfstate/prod.tfstate: cannot read the state: no credential for the Blob service: the Azure CLI gave no token (`az account get-access-token` failed: ERROR: Please run 'az login' to setup account.)\nhint: set `access_key` (ARM_ACCESS_KEY) or `sas_token` (ARM_SAS_TOKEN), or sign in with `az login`, or set ARM_CLIENT_ID and ARM_TENANT_ID with ARM_CLIENT_SECRET, ARM_USE_OIDC=true or ARM_USE_MSI=true\n",
    );
}

/// A directory `terraform init` set up for `backend "azurerm"` (its backend cache as Terraform
/// 1.15.5 writes it: every argument of the schema, unset ones null) with workspace `dev` selected:
/// statectl reads `<key>env:dev`, and `--backend-config endpoint=` is taken over the cache, since
/// the schema has an `endpoint` argument (a deprecated one Terraform never reads).
#[test]
fn an_initialised_directory_reads_its_azurerm_workspace() {
    let Some((azurite, state, _)) = azurite_holding_modules("prod.tfstateenv:dev") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".terraform")).unwrap();
    let mut config = serde_json::Map::new();
    for name in [
        "access_key",
        "ado_pipeline_service_connection_id",
        "client_certificate",
        "client_certificate_password",
        "client_certificate_path",
        "client_id",
        "client_id_file_path",
        "client_secret",
        "client_secret_file_path",
        "endpoint",
        "environment",
        "lookup_blob_endpoint",
        "metadata_host",
        "msi_endpoint",
        "oidc_request_token",
        "oidc_request_url",
        "oidc_token",
        "oidc_token_file_path",
        "resource_group_name",
        "sas_token",
        "snapshot",
        "subscription_id",
        "tenant_id",
        "use_aks_workload_identity",
        "use_azuread_auth",
        "use_cli",
        "use_msi",
        "use_oidc",
    ] {
        config.insert(name.to_owned(), Value::Null);
    }
    config.insert("container_name".to_owned(), CONTAINER.into());
    config.insert("key".to_owned(), "prod.tfstate".into());
    config.insert("storage_account_name".to_owned(), ACCOUNT.into());
    let cache = serde_json::json!({
        "version": 3,
        "terraform_version": "1.15.5",
        "backend": {"type": "azurerm", "config": config, "hash": 1_234_567_890},
    });
    std::fs::write(
        dir.path().join(".terraform/terraform.tfstate"),
        serde_json::to_string_pretty(&cache).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.path().join(".terraform/environment"), "dev").unwrap();
    let listed = Test::new()
        .current_dir(dir.path())
        .args([
            "list",
            "--backend-config",
            &format!("endpoint={}", azurite.endpoint()),
        ])
        .env("ARM_ACCESS_KEY", KEY)
        .run()
        .code(0);
    assert_eq!(listed.stdout, listed_locally(&state));
    assert_starts_with(
        &listed.stderr,
        &format!("state {} (backend \"azurerm\"", url("prod.tfstateenv:dev")),
    );
}

/// An HTTPS proxy on loopback (`CONNECT host:443`) that tunnels every `*.blob.core.windows.net`
/// connection to Azurite and refuses the rest: Terraform's azurerm backend only ever talks to
/// `https://<account>.blob.core.windows.net`, and honours `HTTPS_PROXY`, so through this proxy it
/// reaches Azurite with the very requests it sends to Azure. Stopped when dropped.
pub(crate) struct Proxy {
    port: u16,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    pub(crate) hosts: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Proxy {
    fn start(target: u16) -> Proxy {
        Proxy::start_routes(vec![(".blob.core.windows.net:443", target)])
    }

    /// A proxy tunnelling each host that ends with one of the suffixes to its loopback port
    /// (`login.microsoftonline.com:443` to a stand-in of Azure AD, say).
    pub(crate) fn start_routes(routes: Vec<(&'static str, u16)>) -> Proxy {
        use std::io::{Read, Write};
        use std::sync::atomic::Ordering;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let hosts = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        std::thread::spawn({
            let stop = std::sync::Arc::clone(&stop);
            let hosts = std::sync::Arc::clone(&hosts);
            move || {
                for client in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(mut client) = client else { continue };
                    let hosts = std::sync::Arc::clone(&hosts);
                    let routes = routes.clone();
                    std::thread::spawn(move || {
                        let mut head = Vec::new();
                        let mut byte = [0_u8; 1];
                        while !head.ends_with(b"\r\n\r\n") {
                            if client.read(&mut byte).unwrap_or(0) == 0 {
                                return;
                            }
                            head.push(byte[0]);
                        }
                        let head = String::from_utf8_lossy(&head).into_owned();
                        let host = head.split_whitespace().nth(1).unwrap_or("").to_owned();
                        hosts.lock().unwrap().push(host.clone());
                        let Some(target) = routes
                            .iter()
                            .find(|(suffix, _)| host.ends_with(suffix))
                            .map(|(_, port)| *port)
                        else {
                            let _ = client.write_all(b"HTTP/1.1 403 Forbidden\r\n\r\n");
                            return;
                        };
                        let Ok(upstream) = std::net::TcpStream::connect(("127.0.0.1", target))
                        else {
                            return;
                        };
                        let _ = client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
                        let (mut from_client, mut to_upstream) =
                            (client.try_clone().unwrap(), upstream.try_clone().unwrap());
                        let up = std::thread::spawn(move || {
                            let _ = std::io::copy(&mut from_client, &mut to_upstream);
                            let _ = to_upstream.shutdown(std::net::Shutdown::Write);
                        });
                        let (mut from_upstream, mut to_client) = (upstream, client);
                        let _ = std::io::copy(&mut from_upstream, &mut to_client);
                        let _ = to_client.shutdown(std::net::Shutdown::Write);
                        let _ = up.join();
                    });
                }
            }
        });
        Proxy { port, stop, hosts }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Azure as Terraform sees it, on loopback: Azurite over TLS serving account `tfacct` (not the
/// well-known `devstoreaccount1`: go-azure-sdk signs that account's requests path-style, as for the
/// emulator's own URLs), a CA both tools trust (`SSL_CERT_FILE`), and the proxy.
struct AzureOnLoopback {
    azurite: Azurite,
    proxy: Proxy,
    pki: tempfile::TempDir,
}

const TF_ACCOUNT: &str = "tfacct";
/// A key for `tfacct` (any base64 works for Azurite).
const TF_KEY: &str = "c3RhdGVjdGwtZTJlLWtleS1mb3ItdGZhY2N0LTAwMDE=";

impl AzureOnLoopback {
    fn start() -> Option<AzureOnLoopback> {
        let pki = pki(&["tfacct.blob.core.windows.net", "127.0.0.1"]);
        let azurite = Azurite::start_with(TF_ACCOUNT, TF_KEY, Some(pki.path()), false)?;
        let proxy = Proxy::start(azurite.port);
        Some(AzureOnLoopback {
            azurite,
            proxy,
            pki,
        })
    }

    /// The variables both tools run with: the key, the proxy, the CA.
    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("ARM_ACCESS_KEY", TF_KEY.to_owned()),
            ("HTTPS_PROXY", self.proxy.url()),
            (
                "SSL_CERT_FILE",
                self.pki.path().join("ca.pem").display().to_string(),
            ),
        ]
    }

    fn statectl(&self, folder: &Path, args: &[&str]) -> Test {
        let mut test = Test::new()
            .current_dir(folder)
            .args(args)
            .env("USER", "statectl-e2e");
        for (name, value) in self.env() {
            test = test.env(name, value);
        }
        test
    }
}

/// A working folder with a `backend "azurerm"` block for account `tfacct`, initialised and applied
/// by Terraform through the proxy; checks that Terraform only went to Azure's own address.
fn applied() -> Option<Served<AzureOnLoopback>> {
    let terraform = crate::oracle::terraform()?;
    let azure = AzureOnLoopback::start()?;
    let mut environment = azure.env();
    environment.extend([
        ("CHECKPOINT_DISABLE", "1".to_owned()),
        ("TF_IN_AUTOMATION", "1".to_owned()),
    ]);
    // The proxy must see Azure's own address, whatever the machine exempts.
    let hidden = &["NO_PROXY", "no_proxy", "TF_DATA_DIR"];
    let workdir = Workdir::new(&terraform, |_| environment, hidden);
    workdir.init_and_apply_backend(
        "azurerm",
        &[
            ["storage_account_name", TF_ACCOUNT],
            ["container_name", CONTAINER],
            ["key", "prod.tfstate"],
        ],
    );
    let expected = workdir.terraform_stdout(&["state", "list"]);
    assert_eq!(
        expected,
        "terraform_data.app\nterraform_data.db[0]\nterraform_data.db[1]\n"
    );
    assert!(
        azure
            .proxy
            .hosts
            .lock()
            .unwrap()
            .iter()
            .all(|host| host == "tfacct.blob.core.windows.net:443"),
        "Terraform went to Azure's address only"
    );
    Some(Served::new(azure, workdir))
}

/// Terraform 1.15.5's own azurerm backend and statectl on one state in Azurite, each unchanged:
/// Terraform with its production URL (`https://tfacct.blob.core.windows.net`, through the proxy),
/// statectl from the backend cache Terraform wrote, deriving the same URL (no `endpoint`): statectl
/// lists what Terraform lists, its taint is what Terraform plans from, and a second workspace is the
/// blob Terraform made for it.
#[test]
fn terraform_writes_and_statectl_lists_and_taints_an_azurerm_state() {
    let Some(workdir) = applied() else { return };
    let (azure, folder) = (&workdir.server, workdir.path());
    let expected = workdir.terraform_stdout(&["state", "list"]);
    let listed = azure.statectl(folder, &["list"]).run().code(0);
    assert_eq!(listed.stdout, expected);
    assert_starts_with(
        &listed.stderr,
        &format!(
            "state azurerm://{TF_ACCOUNT}/{CONTAINER}/prod.tfstate (backend \"azurerm\" from .terraform/terraform.tfstate"
        ),
    );

    azure
        .statectl(folder, &["taint", "terraform_data.app"])
        .run()
        .code(0);
    let shown = workdir.terraform_stdout(&["state", "show", "-no-color", "terraform_data.app"]);
    assert_starts_with(&shown, "# terraform_data.app: (tainted)");
    let plan = workdir.terraform_stdout(&["plan", "-no-color", "-input=false"]);
    assert_contains(&plan, "terraform_data.app is tainted, so must be replaced");

    // A second workspace: Terraform makes blob `prod.tfstateenv:dev`; statectl reads it there.
    workdir.terraform_stdout(&["workspace", "new", "-no-color", "dev"]);
    workdir.terraform_stdout(&["apply", "-auto-approve", "-input=false", "-no-color"]);
    let dev = workdir.terraform_stdout(&["state", "list"]);
    let listed = azure.statectl(folder, &["list"]).run().code(0);
    assert_eq!(listed.stdout, dev);
    assert_starts_with(
        &listed.stderr,
        &format!("state azurerm://{TF_ACCOUNT}/{CONTAINER}/prod.tfstateenv:dev (backend"),
    );
}

/// Terraform holds the lease (an apply waiting at its prompt): statectl is refused, naming it, then
/// waits for it with `--lock-timeout`.
#[test]
fn statectl_names_terraforms_lease_and_waits_for_it() {
    let Some(workdir) = applied() else { return };
    let (azure, folder) = (&workdir.server, workdir.path());
    // Terraform holds the lease (an apply waiting at its prompt): statectl is refused, naming it,
    // then waits for it.
    let (mut apply, mut answer) = workdir.apply_waiting_at_the_prompt("terraform_data.db[1]");
    let deadline = Instant::now() + Duration::from_secs(60);
    while azure.azurite.properties("prod.tfstate")["lease"] != "leased" {
        assert!(Instant::now() < deadline, "Terraform never took the lease");
        std::thread::sleep(Duration::from_millis(200));
    }
    let refused = azure
        .statectl(folder, &["untaint", "terraform_data.app"])
        .run()
        .code(2);
    assert!(
        refused.stderr.contains(&format!(
            "azurerm://{TF_ACCOUNT}/{CONTAINER}/prod.tfstate: the state is locked by `"
        )) && refused
            .stderr
            .contains("(Terraform 1.15.5, operation `OperationTypeApply`, since "),
        "{}",
        refused.stderr
    );
    let waiting = std::thread::spawn({
        let test = azure.statectl(
            folder,
            &["taint", "terraform_data.app", "--lock-timeout", "60s"],
        );
        move || test.run()
    });
    std::thread::sleep(Duration::from_secs(1));
    std::io::Write::write_all(&mut answer, b"no\n").unwrap();
    drop(answer);
    let _ = apply.wait();
    waiting.join().unwrap().code(0);
    let shown = workdir.terraform_stdout(&["state", "show", "-no-color", "terraform_data.app"]);
    // The taint waited for the lease and wrote after Terraform's apply.
    assert_contains(&shown, "(tainted)");
}

/// `statectl lock` holds the lease: Terraform is refused, naming statectl; SIGTERM releases it.
#[test]
fn terraform_is_refused_naming_statectl_while_statectl_lock_holds_the_lease() {
    let Some(workdir) = applied() else { return };
    let azure = &workdir.server;
    // statectl holds the lease: Terraform is refused, naming statectl.
    let holder = workdir.statectl_lock_holder();
    let deadline = Instant::now() + Duration::from_secs(30);
    while azure.azurite.properties("prod.tfstate")["lease"] != "leased" {
        assert!(Instant::now() < deadline, "statectl never took the lease");
        std::thread::sleep(Duration::from_millis(100));
    }
    workdir.terraform_refused_by_statectl_lock("terraform_data.app");
    // SIGTERM to its process group: statectl releases the lease before it goes.
    cancel_statectl_lock(holder);
    assert_eq!(
        azure.azurite.properties("prod.tfstate")["lease"],
        "available"
    );
}

/// Azurite (3.37) keeps no blob versions: List Blobs with `include=versions` lists no `VersionId`.
/// `history` says the account keeps none (exit 0); `--version` is an error (exit 2). The versions
/// themselves are tested on a loopback server with the REST API's shapes (`history.rs`).
#[test]
fn azurite_keeps_no_blob_versions_and_history_says_so() {
    let Some(azurite) = Azurite::start() else {
        return;
    };
    let state = root().join("testdata/states/modules.tfstate");
    azurite.upload("prod.tfstate", &state);
    azurite.upload("prod.tfstate", &state);
    let said = azurite
        .statectl(&["history", &url("prod.tfstate")])
        .run()
        .code(0);
    assert_eq!(said.stdout, "");
    assert_contains(
        &said.stderr,
        "warning: azurerm://devstoreaccount1/tfstate/prod.tfstate: storage account `devstoreaccount1` keeps no versions of the blob (blob versioning is off), so the state has no history\nhint: `az storage account blob-service-properties update --account-name devstoreaccount1 --enable-versioning true`",
    );
    azurite
        .statectl(&["list", &url("prod.tfstate"), "--version", "~1"])
        .run()
        .refused("keeps no versions of the blob");
}
