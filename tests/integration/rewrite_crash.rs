//! Crash safety: `statectl taint` killed with SIGKILL at random moments, 200 times. After every kill
//! the state is the old file or the new one, byte for byte (so valid), and when it is the new one the
//! backup holding the old one is there. A later run clears what the killed ones left (temporary
//! files, a stale lock info file) and succeeds: the kernel released the dead process's lock.

use std::fmt::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::builder::Test;
use crate::files::{file_names, folder_with_state};

/// A state as Terraform writes it with one `aws_instance.node` resource of `count` instances.
pub(crate) fn generated_state(count: usize) -> String {
    let mut text = String::from(
        "{\n  \"version\": 4,\n  \"terraform_version\": \"1.15.5\",\n  \"serial\": 1,\n  \"lineage\": \"0d5b8a2e-5a47-4c3b-9a61-6c1f1c1e2a10\",\n  \"outputs\": {},\n  \"resources\": [\n    {\n      \"mode\": \"managed\",\n      \"type\": \"aws_instance\",\n      \"name\": \"node\",\n      \"provider\": \"provider[\\\"registry.terraform.io/hashicorp/aws\\\"]\",\n      \"instances\": [\n",
    );
    for index in 0..count {
        let _ = write!(
            text,
            "        {{\n          \"index_key\": {index},\n          \"schema_version\": 1,\n          \"attributes\": {{\n            \"ami\": \"ami-0abcdef1234567890\",\n            \"id\": \"i-{index:017x}\",\n            \"instance_state\": \"running\",\n            \"instance_type\": \"t3.micro\",\n            \"private_ip\": \"10.0.{}.{}\",\n            \"tags\": {{\n              \"Name\": \"node-{index}\"\n            }}\n          }},\n          \"sensitive_attributes\": [],\n          \"identity_schema_version\": 0,\n          \"private\": \"eyJzY2hlbWFfdmVyc2lvbiI6IjEifQ==\"\n        }}{}\n",
            index / 250,
            index % 250,
            if index + 1 == count { "" } else { "," }
        );
    }
    text.push_str("      ]\n    }\n  ],\n  \"check_results\": null\n}\n");
    text
}

/// A small deterministic generator (the seed is printed, so a failure can be replayed).
struct Random(u64);

impl Random {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % bound.max(1)
    }
}

fn taint(folder: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_statectl"))
        .args(["taint", "aws_instance.node[7]"])
        .current_dir(folder)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn backups(folder: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_string_lossy().ends_with(".backup"))
        .collect()
}

#[test]
fn sigkill_at_random_moments_leaves_the_old_state_or_the_new_one_with_its_backup() {
    const KILLS: usize = 200;
    let old = generated_state(4000);
    let (folder, state) = folder_with_state(&old);
    // The exact bytes a finished write leaves.
    let new = Test::new()
        .args(["taint", "aws_instance.node[7]", "-o", "-"])
        .current_dir(folder.path())
        .run()
        .code(0)
        .stdout;
    assert_ne!(new, old);
    // How long a whole run takes; kills land anywhere from its start to a little past its end.
    let started = Instant::now();
    assert!(taint(folder.path()).wait().unwrap().success());
    let whole_run = started.elapsed();
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("crash test: seed {seed}, one run takes {whole_run:?}");
    let mut random = Random(seed);
    let (mut kept_old, mut got_new) = (0, 0);
    for kill in 0..KILLS {
        std::fs::write(&state, &old).unwrap();
        for backup in backups(folder.path()) {
            std::fs::remove_file(backup).unwrap();
        }
        let mut child = taint(folder.path());
        let window = whole_run.as_micros() as u64 * 13 / 10;
        std::thread::sleep(Duration::from_micros(random.below(window)));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let now = std::fs::read_to_string(&state).expect("the state is always there and UTF-8");
        if now == old {
            kept_old += 1;
        } else if now == new {
            got_new += 1;
            let saved = backups(folder.path());
            assert_eq!(
                saved.len(),
                1,
                "kill {kill}: the new state without its backup"
            );
            assert_eq!(
                std::fs::read_to_string(&saved[0]).unwrap(),
                old,
                "kill {kill}: the backup is the old state"
            );
        } else {
            panic!(
                "kill {kill} (seed {seed}): the state is neither the old file nor the new one ({} bytes)",
                now.len()
            );
        }
    }
    eprintln!("crash test: {KILLS} kills, {kept_old} left the old state, {got_new} the new one");
    assert!(
        kept_old > 0 && got_new > 0,
        "kills must land both before and after the switch: {kept_old} old, {got_new} new"
    );
    // What the killed runs left behind does not stop the next one, which cleans up after them.
    std::fs::write(&state, &old).unwrap();
    Test::new()
        .args(["taint", "aws_instance.node[7]", "--backup", "-"])
        .current_dir(folder.path())
        .run()
        .code(0);
    assert_eq!(std::fs::read_to_string(&state).unwrap(), new);
    let leftovers: Vec<String> = file_names(folder.path())
        .into_iter()
        .filter(|name| name != "terraform.tfstate" && !name.contains(".backup"))
        .collect();
    assert_eq!(leftovers, Vec::<String>::new());
}
