//! Provider plugins statectl can trust, on the real stack: the real AWS provider 3.39.0 as real
//! Terraform 1.15.5's `terraform init` installs it from the filesystem mirror
//! (scripts/install-aws-provider.sh) must verify against the lock file, with the same `h1:` that
//! `terraform providers lock` records; a tampered copy or a provider the lock file does not list is
//! refused before launch. And Ctrl-C while plugin reads are in flight leaves no plugin process, no
//! write and no lock. Without the stack these tests skip, except under CI, where they fail.

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use statectl::reconcile::plugin::discover::{ProviderSource, SearchPaths, find_binary};
use statectl::reconcile::plugin::verify::{package_hash, zip_hash};

use crate::builder::{assert_contains, assert_starts_with};
use crate::files::file_names;
use crate::oracle::{aws_provider_mirror, run, terraform};

const AWS: &str = r#"provider["registry.terraform.io/hashicorp/aws"]"#;

/// A refresh of the one EC2 instance that writes, its report as JSON.
const WRITE_AS_JSON: [&str; 5] = [
    "--target",
    "aws_instance.web",
    "--write",
    "--format",
    "json",
];

/// A configuration folder `terraform init` installed the AWS provider into, from the mirror.
struct Initialised {
    folder: tempfile::TempDir,
    terraform: PathBuf,
    mirror: PathBuf,
}

impl Initialised {
    fn new() -> Option<Initialised> {
        let terraform = terraform()?;
        let mirror = aws_provider_mirror()?;
        let initialised = Initialised {
            folder: tempfile::tempdir().unwrap(),
            terraform,
            mirror,
        };
        initialised.prepare(initialised.path());
        run(initialised.terraform_command(initialised.path()).args([
            "init",
            "-input=false",
            "-no-color",
        ]));
        Some(initialised)
    }

    fn path(&self) -> &Path {
        self.folder.path()
    }

    /// `main.tf` and a CLI configuration that installs from the mirror, in `folder`.
    fn prepare(&self, folder: &Path) {
        crate::files::copy_aws_stack("plugin/aws", folder);
        crate::files::write_mirror_config(
            &folder.join("cli.tfrc"),
            &self.mirror,
            "registry.terraform.io/hashicorp/aws",
        );
    }

    fn terraform_command(&self, folder: &Path) -> Command {
        let mut command = Command::new(&self.terraform);
        command
            .current_dir(folder)
            .env("TF_CLI_CONFIG_FILE", folder.join("cli.tfrc"));
        command
    }

    /// The package directory `terraform init` unpacked.
    fn package(&self) -> PathBuf {
        self.path()
            .join(".terraform/providers/registry.terraform.io/hashicorp/aws/3.39.0")
            .join(statectl::reconcile::plugin::discover::platform())
    }

    /// A state holding `count` EC2 instances of the AWS provider, written as `terraform.tfstate`.
    fn write_state(&self, count: usize) -> Vec<u8> {
        let instances: Vec<Value> = (0..count)
            .map(|index| {
                json!({
                    "index_key": index,
                    "schema_version": 1,
                    "attributes": {"id": format!("i-0{index:016x}"), "instance_state": "pending"},
                    "sensitive_attributes": []
                })
            })
            .collect();
        let mut state = aws_instances(&instances);
        state["check_results"] = Value::Null;
        let mut text = serde_json::to_string_pretty(&state).unwrap();
        text.push('\n');
        std::fs::write(self.path().join("terraform.tfstate"), &text).unwrap();
        text.into_bytes()
    }

    /// `statectl refresh --reader plugin` here, with every AWS endpoint at `endpoint`.
    fn statectl_refresh(&self, endpoint: &str, extra: &[&str]) -> Command {
        let settings = json!({"max_retries": 0});
        crate::processes::aws_plugin_refresh(
            self.path(),
            endpoint,
            &["ec2", "sts", "iam"],
            settings,
            extra,
        )
    }
}

/// The `hashes` of the lock file in `folder`, for the AWS provider.
fn locked_hashes(folder: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(folder.join(".terraform.lock.hcl")).unwrap();
    let start = text
        .find("hashes = [")
        .expect("the lock file records hashes");
    let end = start + text[start..].find(']').unwrap();
    text[start..end]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// `terraform providers lock`, on its own from the mirror's zip, records `h1` (and, when it records
/// one, the zip's `zh:` as statectl computes it).
fn assert_terraform_locks(stack: &Initialised, h1: &str) {
    let oracle = tempfile::tempdir().unwrap();
    stack.prepare(oracle.path());
    run(stack.terraform_command(oracle.path()).args([
        "providers",
        "lock",
        "-no-color",
        &format!("-fs-mirror={}", stack.mirror.display()),
        &format!(
            "-platform={}",
            statectl::reconcile::plugin::discover::platform()
        ),
    ]));
    let locked_by_terraform = locked_hashes(oracle.path());
    assert!(
        locked_by_terraform.iter().any(|hash| hash == h1),
        "{h1} not in {locked_by_terraform:?}"
    );
    let zip = stack.mirror.join(format!(
        "registry.terraform.io/hashicorp/aws/terraform-provider-aws_3.39.0_{}.zip",
        statectl::reconcile::plugin::discover::platform()
    ));
    let zh = zip_hash(&zip).unwrap();
    if locked_by_terraform
        .iter()
        .any(|hash| hash.starts_with("zh:"))
    {
        assert!(locked_by_terraform.contains(&zh), "{zh}");
    }
}

#[test]
fn the_installed_package_verifies_and_a_tampered_or_unlisted_one_is_refused() {
    let Some(stack) = Initialised::new() else {
        return;
    };
    // statectl's h1 of the installed package is the one `terraform init` recorded, and the one
    // `terraform providers lock` computes from the mirror's zip on its own; the zip's zh too.
    let ours = package_hash(&stack.package()).unwrap();
    let recorded = locked_hashes(stack.path());
    assert!(recorded.contains(&ours), "{ours} not in {recorded:?}");
    assert_terraform_locks(&stack, &ours);

    let source = ProviderSource::parse("hashicorp/aws");
    let installed = SearchPaths {
        config_dir: stack.path().to_owned(),
        ..SearchPaths::default()
    };
    let binary = find_binary(&source, &installed).unwrap();
    assert!(binary.starts_with(stack.package()), "{}", binary.display());

    // A copy of the package in a --plugin-dir verifies; with one byte changed it is refused.
    let plugins = tempfile::tempdir().unwrap();
    let copy = plugins
        .path()
        .join("registry.terraform.io/hashicorp/aws/3.39.0")
        .join(statectl::reconcile::plugin::discover::platform());
    std::fs::create_dir_all(&copy).unwrap();
    let copied_binary = copy.join(binary.file_name().unwrap());
    std::fs::copy(&binary, &copied_binary).unwrap();
    let from_plugin_dir = SearchPaths {
        plugin_dirs: vec![plugins.path().to_owned()],
        ..installed.clone()
    };
    assert_eq!(
        find_binary(&source, &from_plugin_dir).unwrap(),
        copied_binary
    );
    let mut bytes = std::fs::read(&copied_binary).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&copied_binary, &bytes).unwrap();
    drop(bytes);

    let before = stack.write_state(2);
    let (code, stdout, stderr) = crate::processes::output_of(
        stack
            .statectl_refresh(
                "http://127.0.0.1:9",
                &["--target", "aws_instance.web", "--write"],
            )
            .arg("--plugin-dir")
            .arg(plugins.path()),
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert_eq!(
        lines[0],
        format!(
            "error: the cached package for registry.terraform.io/hashicorp/aws 3.39.0 (in `{}`) does not match any of the checksums recorded in the dependency lock file",
            copy.display()
        )
    );
    assert!(lines[1].starts_with("hint: "), "{stderr}");
    assert!(lines[1].contains("terraform init -upgrade"), "{stderr}");
    assert!(lines[1].contains("terraform providers lock"), "{stderr}");
    assert_eq!(
        std::fs::read(stack.path().join("terraform.tfstate")).unwrap(),
        before
    );

    // A lock file that does not list the provider: not launched at all.
    let lock = stack.path().join(".terraform.lock.hcl");
    let text = std::fs::read_to_string(&lock).unwrap();
    std::fs::write(
        &lock,
        text.replace(
            "registry.terraform.io/hashicorp/aws",
            "registry.terraform.io/hashicorp/null",
        ),
    )
    .unwrap();
    let (code, stdout, stderr) = crate::processes::output_of(&mut stack.statectl_refresh(
        "http://127.0.0.1:9",
        &["--target", "aws_instance.web", "--write"],
    ));
    assert_eq!(code, 2, "{stdout}{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with(
            "error: provider registry.terraform.io/hashicorp/aws: required by this state but no version is selected in `"
        ),
        "{stderr}"
    );
    assert!(lines[1].contains("terraform init -upgrade"), "{stderr}");
    assert_eq!(
        std::fs::read(stack.path().join("terraform.tfstate")).unwrap(),
        before
    );
}

/// The processes whose parent is `pid`.
fn children_of(pid: u32) -> Vec<u32> {
    crate::processes::list()
        .into_iter()
        .filter(|(_, fields)| fields.get(1) == Some(&pid.to_string()))
        .map(|(child, _)| child)
        .collect()
}

/// Whether `pid` is a live process (a zombie has already exited and only waits to be reaped).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let after = &stat[stat.rfind(')').unwrap_or(0) + 1..];
        after.split_whitespace().next() != Some("Z")
    })
}

#[test]
fn ctrl_c_while_plugin_reads_are_in_flight_leaves_no_plugin_no_write_and_no_lock() {
    let Some(stack) = Initialised::new() else {
        return;
    };
    // An EC2 endpoint that never answers: the reads stay in flight.
    let (endpoint, accepted) = black_hole();
    let before = stack.write_state(3);
    let mut child = stack
        .statectl_refresh(
            &endpoint,
            &[
                "--target",
                "aws_instance.web",
                "--write",
                "--backup",
                "-",
                "--timeout",
                "5m",
            ],
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the plugin has asked (verification, launch and configuration first), at most 2 min.
    let waited = Instant::now();
    while accepted.load(Ordering::SeqCst) < 3 {
        assert!(
            waited.elapsed() < Duration::from_secs(120),
            "the plugin never asked: {:?}",
            child.try_wait()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let plugins = children_of(child.id());
    assert!(!plugins.is_empty(), "no plugin process under statectl");
    let (stdout, stderr) = crate::processes::interrupted(child);
    assert_contains(&stderr, "nothing was written");
    assert_contains(&stdout, "interrupted");
    // Every plugin process is gone (given a moment for the kill to land), by PID.
    let waited = Instant::now();
    while plugins.iter().any(|pid| running(*pid)) {
        assert!(
            waited.elapsed() < Duration::from_secs(5),
            "plugin processes left running: {plugins:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Not a byte written, no backup, the lock released.
    assert_eq!(
        std::fs::read(stack.path().join("terraform.tfstate")).unwrap(),
        before
    );
    assert!(!stack.path().join(".terraform.tfstate.lock.info").exists());
    let names: Vec<String> = file_names(stack.path());
    assert!(
        names.iter().all(|name| !name.contains("backup")),
        "{names:?}"
    );
}

/// An endpoint that takes every connection and never answers; returns its URL and how many
/// connections it has taken.
fn black_hole() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&accepted);
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            counter.fetch_add(1, Ordering::SeqCst);
            let mut reader = stream.try_clone().unwrap();
            std::thread::spawn(move || {
                let mut sink = [0_u8; 4096];
                while reader.read(&mut sink).is_ok_and(|read| read > 0) {}
            });
            held.push(stream);
        }
    });
    (endpoint, accepted)
}

#[test]
fn a_read_that_hangs_or_fails_is_a_per_instance_error_and_nothing_is_written() {
    let Some(stack) = Initialised::new() else {
        return;
    };
    let before = stack.write_state(2);

    // The provider never hears back from EC2: each read ends at the --timeout deadline.
    let (endpoint, accepted) = black_hole();
    let started = Instant::now();
    let (code, stdout, stderr) = crate::processes::output_of(&mut stack.statectl_refresh(
        &endpoint,
        &[
            "--target",
            "aws_instance.web",
            "--write",
            "--timeout",
            "3s",
            "--format",
            "json",
        ],
    ));
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        accepted.load(Ordering::SeqCst) > 0,
        "the provider never asked"
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let report: Value = serde_json::from_str(&stdout).unwrap();
    for (index, instance) in report["instances"].as_array().unwrap().iter().enumerate() {
        assert_eq!(instance["outcome"], "error", "{stdout}");
        assert_eq!(
            instance["detail"],
            format!("error: aws_instance.web[{index}]: no answer within 3s"),
            "{stdout}"
        );
    }
    assert_eq!(
        std::fs::read(stack.path().join("terraform.tfstate")).unwrap(),
        before
    );

    // EC2 refuses the connection: the provider's own error diagnostic, for each instance.
    let endpoint = crate::processes::refusing_url();
    let (code, stdout, stderr) =
        crate::processes::output_of(&mut stack.statectl_refresh(&endpoint, &WRITE_AS_JSON));
    assert_eq!(code, 2, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    for (index, instance) in report["instances"].as_array().unwrap().iter().enumerate() {
        assert_eq!(instance["outcome"], "error", "{stdout}");
        let detail = instance["detail"].as_str().unwrap();
        assert!(
            detail.starts_with(&format!("error: aws_instance.web[{index}]: ")),
            "{stdout}"
        );
        assert!(detail.contains("connection refused"), "{stdout}");
    }
    assert_eq!(
        std::fs::read(stack.path().join("terraform.tfstate")).unwrap(),
        before
    );
}

#[test]
fn a_dev_override_terraform_uses_is_used_unverified_with_terraforms_warning() {
    let (Some(terraform), Some(binary)) = (terraform(), crate::plugin::aws_provider()) else {
        return;
    };
    let binary = binary.canonicalize().unwrap();
    let dir = binary.parent().unwrap();
    // A configuration never initialised: no .terraform, no lock file; the override is all.
    let folder = tempfile::tempdir().unwrap();
    crate::files::copy_aws_stack("plugin/aws", folder.path());
    let cli_config = folder.path().join("dev.tfrc");
    std::fs::write(
        &cli_config,
        format!(
            "provider_installation {{\n  dev_overrides {{\n    \"hashicorp/aws\" = \"{}\"\n  }}\n  direct {{}}\n}}\n",
            dir.display()
        ),
    )
    .unwrap();
    // Terraform runs the provider from there (validate loads its schema), and says so.
    let said = run(Command::new(&terraform)
        .args(["validate", "-no-color"])
        .current_dir(folder.path())
        .env("TF_CLI_CONFIG_FILE", &cli_config));
    assert_contains(&said, "Provider development overrides are in effect");
    assert_contains(&said, &format!(" - hashicorp/aws in {}", dir.display()));

    // statectl too: the plugin runs (its own error about the refused endpoint proves it), with
    // the same warning.
    let stack = Initialised {
        folder,
        terraform,
        mirror: PathBuf::new(),
    };
    let before = stack.write_state(1);
    let endpoint = crate::processes::refusing_url();
    let (code, stdout, stderr) = crate::processes::output_of(
        stack
            .statectl_refresh(&endpoint, &WRITE_AS_JSON)
            .env("TF_CLI_CONFIG_FILE", &cli_config),
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let detail = report["instances"][0]["detail"].as_str().unwrap();
    assert_starts_with(detail, "error: aws_instance.web[0]: ReadResource: ");
    assert_contains(detail, "connection refused");
    assert_contains(
        &stderr,
        &format!(
            "warning: Provider development overrides are in effect: hashicorp/aws in {}; the behavior may therefore not match any released version of the provider",
            dir.display()
        ),
    );
    assert_eq!(
        std::fs::read(stack.path().join("terraform.tfstate")).unwrap(),
        before
    );
}

#[test]
fn a_package_linked_from_the_plugin_cache_is_verified_through_the_link() {
    let (Some(terraform), Some(mirror)) = (terraform(), aws_provider_mirror()) else {
        return;
    };
    let stack = Initialised {
        folder: tempfile::tempdir().unwrap(),
        terraform,
        mirror: mirror.canonicalize().unwrap(),
    };
    stack.prepare(stack.path());
    let cache = tempfile::tempdir().unwrap();
    let cli_config = stack.path().join("cli.tfrc");
    let text = std::fs::read_to_string(&cli_config).unwrap();
    std::fs::write(
        &cli_config,
        format!("plugin_cache_dir = \"{}\"\n{text}", cache.path().display()),
    )
    .unwrap();
    run(stack
        .terraform_command(stack.path())
        .args(["init", "-input=false", "-no-color"]));
    // Terraform links the package directory into the cache.
    let link = stack.package();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(locked_hashes(stack.path()).contains(&package_hash(&link).unwrap()));
    let paths = SearchPaths {
        config_dir: stack.path().to_owned(),
        ..SearchPaths::default()
    };
    let source = ProviderSource::parse("hashicorp/aws");
    let binary = find_binary(&source, &paths).unwrap();

    // One byte changed in the cache: every configuration linked to it is refused.
    let cached = link
        .canonicalize()
        .unwrap()
        .join(binary.file_name().unwrap());
    let mut bytes = std::fs::read(&cached).unwrap();
    bytes[4096] ^= 0x20;
    std::fs::write(&cached, &bytes).unwrap();
    drop(bytes);
    let error = find_binary(&source, &paths).unwrap_err();
    assert!(
        error
            .to_string()
            .ends_with("does not match any of the checksums recorded in the dependency lock file"),
        "{error}"
    );
}

/// A state (format 4, serial 3) whose one resource `aws_instance.web` of the AWS provider has
/// `instances`.
pub(crate) fn aws_instances(instances: &[Value]) -> Value {
    json!({
        "version": 4,
        "terraform_version": "1.15.5",
        "serial": 3,
        "lineage": "6d1f3c8e-2b7a-4c55-9e0f-1a2b3c4d5e6f",
        "outputs": {},
        "resources": [{
            "mode": "managed",
            "type": "aws_instance",
            "name": "web",
            "provider": AWS,
            "instances": instances
        }]
    })
}
