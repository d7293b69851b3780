//! `statectl restore --version V [STATE]`: makes an earlier version the current state, the way
//! Terraform takes it. The version is read first (an unknown id, a delete marker or a version that
//! is not a state stops there, before any lock); then, under the backend's lock, the current state
//! is re-read, the lineages compared (another lineage needs `--force`, and the refusal names both),
//! the lifecycle rules checked on the objects the restore drops, the diff from the current state
//! shown, and the version written with a serial above the current one (so Terraform's next run
//! takes it) through the store's commit: the current bytes proven unchanged and backed up, the S3
//! digest recorded. Nothing is deleted: on a versioned backend the replaced state stays a version.

use crate::cli::Printer;
use crate::cli::error::{CliError, echo, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::rewrite::{LockMode, WriteArgs, enforce_rules_on, lock, open};
use crate::cli::settings::{Destination, WriteIntent, WriteSettings};
use crate::state::mutate::Mutation;
use crate::state::order::instance_groups;
use crate::state::{State, parse};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The version to make current: an id `statectl history` prints (an S3 version id, a backup's
    /// file name), or `~N` for N versions before the current one.
    #[arg(long = "version", id = "restore_version", value_name = "V")]
    pub version: String,

    #[command(flatten)]
    pub write: WriteArgs,
}

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    let settings = WriteSettings::resolve(&args.write, WriteIntent::ByDefault)?;
    let (version, version_bytes) =
        crate::cli::versions::read_version(&settings.source, &args.version, &settings.encryption)?;
    let restored = version_bytes
        .parse()
        .map_err(|error| crate::cli::versions::not_a_state(&settings.source, &version, &error))?;
    let mut loaded = open(&settings, "restore", LockMode::LockFirst, printer)?;
    let locked = loaded.locked.take();
    let source = &loaded.source;
    let current = crate::cli::load::parse_state(source, &loaded.bytes)?;
    let id = echo(&version.id);
    if restored.lineage != current.lineage {
        let what = format!(
            "version `{id}` has lineage `{}`, the current state `{}`: it is another state",
            sanitize(&restored.lineage),
            sanitize(&current.lineage)
        );
        if !settings.force {
            return Err(CliError::new(format!("{source}: {what}; nothing was written"))
                .with_hint("`--force` restores it anyway, as `terraform state push -force` would; check first that it is the state you mean"));
        }
        printer.warning(&format!("overriding the lineage check: {what}"));
    }
    let dropped = dropped(&current, &restored);
    enforce_rules_on(&loaded, &current, &dropped, settings.force, printer)?;
    let serial = current.serial.max(restored.serial) + 1;
    let new_text = with_serial(&restored, serial).ok_or_else(|| {
        CliError::new(format!(
            "{source}: version `{id}` has no `serial` to raise; nothing was written"
        ))
    })?;
    let after = parse(new_text.as_bytes()).map_err(|error| {
        CliError::new(format!(
            "{source}: internal error, nothing was written: the restored state does not parse: {}",
            error.describe("restored state")
        ))
    })?;
    let to_stderr = settings.stdout_carries_state();
    let color = if to_stderr {
        printer.color_stderr()
    } else {
        printer.color_stdout()
    };
    let diff = crate::cli::diff::readable(&current, &after, settings.show_sensitive, color);
    if to_stderr {
        printer.report_on_stderr(&diff);
    } else {
        printer.out(&diff)?;
    }
    let what = format!(
        "version `{id}` (serial {}) over serial {}, as serial {serial}",
        restored.serial, current.serial
    );
    let lineage = after.lineage.to_string();
    drop(after);
    let backup = match &settings.destination {
        Destination::Nothing => {
            printer.note(&format!(
                "Would restore {what}; nothing written ({})",
                settings.nothing_written_because
            ));
            return Ok(ExitStatus::Findings);
        }
        Destination::Stdout => {
            let sealed = crate::cli::encryption::seal(
                &settings.encryption,
                source,
                new_text,
                serial,
                &lineage,
            )?;
            printer.out_bytes(&sealed)?;
            return Ok(ExitStatus::Success);
        }
        Destination::File(backup) => backup,
    };
    let sealed =
        crate::cli::encryption::seal(&settings.encryption, source, new_text, serial, &lineage)?;
    let locked = match locked {
        Some(locked) => locked,
        None => lock(source, "restore", settings.lock_timeout)?,
    };
    let committed = locked.commit(loaded.stored_bytes(), &sealed, backup)?;
    let backup_note = committed.backup.map_or_else(
        || "no backup".to_owned(),
        |path| format!("backup `{}`", path.display()),
    );
    printer.note(&format!("Restored {what}; {backup_note}"));
    Ok(ExitStatus::Success)
}

/// The instances of `current` that `restored` lacks: what the restore removes, which the
/// lifecycle rules judge as a `forget` of each.
fn dropped(current: &State<'_>, restored: &State<'_>) -> Vec<Mutation> {
    let kept: std::collections::HashSet<_> = instance_groups(restored)
        .iter()
        .map(crate::state::order::InstanceGroup::address)
        .collect();
    instance_groups(current)
        .iter()
        .map(crate::state::order::InstanceGroup::address)
        .filter(|address| !kept.contains(address))
        .map(|address| Mutation::Forget(crate::state::address::Target::Instance(address)))
        .collect()
}

/// The text of `state` with its serial replaced by `serial`, every other byte kept.
fn with_serial(state: &State<'_>, serial: u64) -> Option<String> {
    let span = state.serial_span?;
    let text = state.source;
    Some(format!(
        "{}{serial}{}",
        &text[..span.start],
        &text[span.end..]
    ))
}
