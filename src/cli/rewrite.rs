//! What every command that changes a state shares: the flags (`--dry-run`, `--force`,
//! `--lock-timeout`, `--backup`, `-o -`, `--config`, `--policy`), and the one flow from mutations to a
//! written state: lock, read, plan, lifecycle rules, diff, self-check, commit.
//!
//! A single mutation locks before it reads, so a `--lock-timeout` wait ends with the change made on
//! top of whatever the other writer wrote. `--dry-run` and `-o -` write no file and take no lock.

use std::path::PathBuf;
use std::time::Duration;

use statectl_analysis::policy::file::Policy;
use statectl_analysis::policy::lifecycle::{Context, check};
use statectl_analysis::scan::rules::Rules;

use crate::cli::duration::DurationParser;
use crate::cli::error::{CliError, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::lifecycle_inputs::{ConfigChoice, LifecycleConfig, load_config, load_policy};
use crate::cli::object_diff::{colorize, object_diff};
use crate::cli::settings::{Destination, WriteSettings};
use crate::cli::{Printer, StateArg, load};
use crate::state::address::ObjectAddr;
use crate::state::legacy::{self, StateBytes};
use crate::state::mutate::{
    Action, Mutation, Plan, SpliceError, check_splice, object_of, plan, render_tracked,
};
use crate::state::source::Source;
use crate::state::store::Locked;
use crate::state::write::Applied;
use crate::state::{State, StateError, parse};

/// The flags of every command that writes a state.
#[derive(Debug, clap::Args)]
pub struct WriteArgs {
    #[command(flatten)]
    pub state: StateArg,

    /// Show what would change and write nothing (exit 1 when something would change).
    #[arg(long, conflicts_with_all = ["output", "backup"])]
    pub dry_run: bool,

    /// Write even when lifecycle rules refuse the change; each override is printed.
    #[arg(long)]
    pub force: bool,

    /// How long to wait for the state lock, as Terraform's `-lock-timeout` (e.g. `30s`, `2m`).
    #[arg(long, value_name = "DURATION", value_parser = DurationParser, default_value = "0s")]
    pub lock_timeout: Duration,

    /// Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as
    /// `terraform state rm` writes.
    #[arg(long, value_name = "PATH", conflicts_with = "output")]
    pub backup: Option<PathBuf>,

    /// Write the new state to standard output instead of the file: `-o -`, the one value taken
    /// (e.g. for `terraform state push -`); no lock, no backup.
    #[arg(short = 'o', long = "output", value_name = "STDOUT", value_parser = only_stdout)]
    pub output: Option<String>,

    /// A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the
    /// `.statectl.toml` found upward from the working directory.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,

    /// Do not apply the configuration's lifecycle rules (`prevent_destroy`, `destroy = false`,
    /// `removed` blocks), which are otherwise read from `--config DIR` or the working directory.
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,

    /// Show sensitive values in the diff instead of masking them.
    #[arg(long)]
    pub show_sensitive: bool,
}

fn only_stdout(value: &str) -> Result<String, crate::cli::flag_value::FlagValueError> {
    if value == "-" {
        Ok(value.to_owned())
    } else {
        Err(crate::cli::flag_value::FlagValueError::OnlyStandardOutput)
    }
}

/// When the state is locked: before it is read (a single mutation, so a `--lock-timeout` wait ends
/// with the change made on top of the other writer's), or only for the commit (a refresh, which
/// must not hold the lock through minutes of network calls; the commit then proves under the lock
/// that the file still holds the bytes the change was computed from).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LockMode {
    LockFirst,
    ReadFirst,
}

/// What one command asks for: its name (for the lock info and messages), and its mutations.
#[derive(Debug)]
pub(super) struct WriteRequest {
    pub operation: &'static str,
    pub mutations: Vec<Mutation>,
    /// Said once the change is known to go ahead (or would, with `--dry-run`).
    pub warning: Option<&'static str>,
    /// Print the diff of each changed object (not when stdout carries JSON).
    pub show_diff: bool,
}

/// Everything a write needs besides the state: the rules, the configuration, the policy.
#[derive(Debug)]
pub(super) struct Loaded {
    pub source: Source,
    /// The state to parse: the stored bytes, or the plaintext of an encrypted state.
    pub bytes: StateBytes,
    /// The stored bytes of an encrypted state (what the commit compares and backs up), which
    /// never leave this process decrypted.
    pub stored: Option<crate::state::bytes::Bytes>,
    /// The write stores the state differently from how it was read (OpenTofu's migration).
    migrates: bool,
    /// The lock, when taken before the read; [`finish`] takes it out.
    pub locked: Option<Locked>,
    rules: Rules,
    policy: Policy,
    config: LifecycleConfig,
}

/// Runs the whole flow for a single mutation and returns the exit code.
pub(super) fn rewrite(
    settings: &WriteSettings,
    request: &WriteRequest,
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    let mut loaded = open(settings, request.operation, LockMode::LockFirst, printer)?;
    let locked = loaded.locked.take();
    let state = load::parse_state(&loaded.source, &loaded.bytes)?;
    let status = finish(settings, request, &loaded, locked, &state, printer);
    // The write is done (or refused): freeing the model one allocation at a time would only delay
    // the exit.
    load::leave_to_exit(state);
    status
}

/// Reads the state the settings name, with the lock first when `mode` says so (and the file is to be
/// written), and everything the rules read.
pub(super) fn open(
    settings: &WriteSettings,
    operation: &str,
    mode: LockMode,
    printer: &mut Printer,
) -> Result<Loaded, CliError> {
    let source = settings.source.clone();
    if settings.destination != Destination::Nothing && !settings.encryption.writes_plaintext() {
        // The write's key is made beside the read, parse and plan, instead of after them (when
        // it is pure computation). Without the thread, the write makes its own key.
        let encryption = std::sync::Arc::clone(&settings.encryption);
        let _ = std::thread::Builder::new()
            .name("write-key".into())
            .spawn(move || encryption.make_write_key_ahead());
    }
    let rules = crate::cli::scan::load_rules(None)?;
    let policy = load_policy(settings.policy.as_deref(), &rules)?;
    let config = load_config(
        ConfigChoice::from_flags(settings.config.as_deref(), settings.no_config),
        printer,
    )?;
    let no_state_here = |mut error: CliError| {
        if is_missing_default(&source) {
            error.hint = Some(format!(
                "no state in the working directory: name the state file (`statectl {operation} ADDRESS path/to/terraform.tfstate`), run where `terraform init` ran, or pipe one (`terraform state pull | statectl {operation} ADDRESS - -o - | terraform state push -`)"
            ));
        }
        error
    };
    let locked = if settings.writes_file() && mode == LockMode::LockFirst {
        Some(lock(&source, operation, settings.lock_timeout).map_err(no_state_here)?)
    } else {
        None
    };
    let read = match &locked {
        Some(locked) => locked.read()?,
        None => source
            .read()
            .map_err(|error| no_state_here(CliError::state(&source, &error)))?,
    };
    let (plaintext, stored, migrates) =
        crate::cli::encryption::open_status(&settings.encryption, &source, read)?;
    let bytes = StateBytes::new(plaintext);
    // Once read: an error already names the state, and stays the one line it should be.
    if let Some(note) = &settings.source_note {
        printer.note(note);
    }
    Ok(Loaded {
        source,
        bytes,
        stored,
        migrates,
        locked,
        rules,
        policy,
        config,
    })
}

impl Loaded {
    /// The bytes as stored: what a commit expects to find, and what a no-op `-o -` prints.
    pub(super) fn stored_bytes(&self) -> &[u8] {
        self.stored.as_deref().unwrap_or(self.bytes.raw())
    }
}

/// Whether `source` is the default `terraform.tfstate`, and there is none.
fn is_missing_default(source: &Source) -> bool {
    matches!(source, Source::Path(path)
        if path.as_os_str() == crate::state::source::DEFAULT_STATE && !path.exists())
}

pub(super) fn lock(
    source: &Source,
    operation: &str,
    timeout: Duration,
) -> Result<Locked, CliError> {
    // A signal from now on releases the lock and leaves the state old or new (exit 130 or 143).
    crate::cli::interrupt::end_writes_safely_on_interrupt();
    Ok(Locked::acquire_source(
        source,
        &format!("statectl {operation}"),
        timeout,
    )?)
}

/// Plans `request` on `state` (parsed from `loaded.bytes`), checks the rules, shows the diff and
/// writes as the arguments say. Returns the exit code.
pub(super) fn finish(
    settings: &WriteSettings,
    request: &WriteRequest,
    loaded: &Loaded,
    locked: Option<Locked>,
    state: &State<'_>,
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    let (source, rules, policy, config) = (
        &loaded.source,
        &loaded.rules,
        &loaded.policy,
        &loaded.config,
    );
    let to_stdout = settings.stdout_carries_state();
    let started = std::time::Instant::now();
    let plan = plan(state, &request.mutations).map_err(|error| CliError::state(source, &error))?;
    tracing::debug!(
        steps = plan.steps.len(),
        elapsed_ms = started.elapsed().as_millis(),
        "planned"
    );
    for unchanged in &plan.unchanged {
        if request.operation == "untaint" {
            // As `terraform untaint`: an instance that is not tainted is an error, exit 1.
            return Err(CliError {
                message: format!(
                    "{source}: `{}` is not tainted, so it cannot be untainted; nothing written",
                    unchanged.address
                ),
                hint: None,
                code: ExitStatus::Findings,
            });
        }
        printer.warning(&format!(
            "`{}` is {}; nothing to change",
            unchanged.address, unchanged.why
        ));
    }
    config.say(printer);
    let context = Context {
        catalog: &rules.catalog,
        config: config.config.as_ref(),
        policy,
    };
    enforce_rules(state, &plan, &context, settings.force, printer)?;
    if loaded.bytes.is_upgraded()
        && request.operation == "refresh"
        && !plan.is_empty()
        && settings.destination != Destination::Nothing
    {
        // Terraform's refresh of such a state also rewrites every flat attribute through the
        // provider's schema, which a splice cannot reproduce. (Today's readers cannot read flat
        // attributes, so no refresh of one gets here; this keeps it so if they learn to.)
        return Err(CliError::new(format!(
            "{source}: a format-3 state (Terraform 0.11-era) cannot take a refresh's changes; nothing was written"
        ))
        .with_hint(legacy::UPGRADE_HINT));
    }
    if plan.is_empty() {
        if to_stdout {
            // An encrypted state goes out as stored: it stays encrypted.
            match &loaded.stored {
                Some(stored) => printer.out_bytes(stored)?,
                // The state byte for byte (`out` would mask and escape what must pass exactly).
                None => printer.out_bytes(state.source.as_bytes())?,
            }
        }
        return Ok(ExitStatus::Success);
    }
    if let Some(warning) = request.warning {
        printer.warning(warning);
    }
    let new_state = checked_new_state(settings, request, loaded, state, &plan, printer)?;
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis(),
        "new state checked"
    );
    write_out(
        settings, request, loaded, locked, state, &plan, new_state, printer,
    )
}

/// The new state for `plan`: the splice's pieces (the old bytes borrowed, the changes rendered), or
/// the whole text of a state rewritten beyond a splice (a format-3 state's upgrade).
enum NewState<'s> {
    Spliced(Applied<'s>),
    Whole(String),
}

impl NewState<'_> {
    fn pieces(&self) -> Vec<&[u8]> {
        match self {
            NewState::Spliced(applied) => applied.pieces().collect(),
            NewState::Whole(text) => vec![text.as_bytes()],
        }
    }

    fn into_text(self) -> String {
        match self {
            NewState::Spliced(applied) => applied.to_text(),
            NewState::Whole(text) => text,
        }
    }
}

/// What is stored for a new state: its plaintext pieces, or its envelope.
enum Sealed<'s> {
    Plain(NewState<'s>),
    Encrypted(Vec<u8>),
}

impl Sealed<'_> {
    fn pieces(&self) -> Vec<&[u8]> {
        match self {
            Sealed::Plain(new_state) => new_state.pieces(),
            Sealed::Encrypted(envelope) => vec![envelope],
        }
    }
}

/// The new state for `plan`, checked before any byte is written, and its diff shown when the
/// request asks for one.
fn checked_new_state<'s>(
    settings: &WriteSettings,
    request: &WriteRequest,
    loaded: &Loaded,
    state: &'s State<'s>,
    plan: &'s Plan,
    printer: &mut Printer,
) -> Result<NewState<'s>, CliError> {
    let (source, to_stdout) = (&loaded.source, settings.stdout_carries_state());
    let started = std::time::Instant::now();
    let applied = render_tracked(state, plan);
    tracing::debug!(
        bytes = applied.len(),
        elapsed_ms = started.elapsed().as_millis(),
        "rendered"
    );
    let mut diff = |objects: &[Option<&str>]| {
        show_diff(
            state,
            plan,
            objects,
            settings.show_sensitive,
            to_stdout,
            printer,
        )
    };
    if loaded.bytes.is_upgraded() {
        // A format-3 state is written as format 4, exactly as Terraform 1.15.5's own taint, untaint
        // or `state rm` writes it: the upgraded text is its writer's form already. That rewrite
        // moves every byte, so the new state is checked by parsing it whole (such states are small).
        let new_text = legacy::as_terraform_writes(&applied.to_text());
        drop(applied);
        let after = check_parsed(source, state, plan, &new_text)?;
        if request.show_diff {
            diff(&objects_of_parsed(plan, &after))?;
        }
        drop(after);
        return Ok(NewState::Whole(new_text));
    }
    let objects = check_rendered(source, state, plan, &applied)?;
    if request.show_diff {
        diff(&objects)?;
    }
    drop(objects);
    Ok(NewState::Spliced(applied))
}

/// Puts the new state where the settings say: nowhere (the change summarised), stdout, or the
/// state itself, locked (if not already) and committed against the bytes it was computed from.
#[expect(
    clippy::too_many_arguments,
    reason = "the steps of one write, handed on by finish (the new text to be sealed in place)"
)]
fn write_out(
    settings: &WriteSettings,
    request: &WriteRequest,
    loaded: &Loaded,
    locked: Option<Locked>,
    state: &State<'_>,
    plan: &Plan,
    new_state: NewState<'_>,
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    let source = &loaded.source;
    // What is stored for the new state: encrypted by the primary method when one encrypts, so
    // plaintext never reaches a file, a backend or standard output; else the new state's own
    // pieces, streamed out as they are (a whole new copy in memory would buy nothing).
    let sealed = match &settings.destination {
        Destination::Nothing => None,
        _ if settings.encryption.writes_plaintext() => Some(Sealed::Plain(new_state)),
        _ => Some(Sealed::Encrypted(crate::cli::encryption::seal(
            &settings.encryption,
            source,
            new_state.into_text(),
            state.serial + 1,
            &state.lineage,
        )?)),
    };
    let sealed = sealed.as_ref().map(Sealed::pieces).unwrap_or_default();
    let backup = match &settings.destination {
        Destination::Nothing => {
            printer.note(&format!(
                "{}; nothing written ({})",
                would(plan),
                settings.nothing_written_because
            ));
            return Ok(ExitStatus::Findings);
        }
        Destination::Stdout => {
            for piece in sealed {
                printer.out_bytes(piece)?;
            }
            return Ok(ExitStatus::Success);
        }
        Destination::File(backup) => backup,
    };
    // The settings refuse to write back to standard input, so `lock` finds a file or a backend.
    let locked = match locked {
        Some(locked) => locked,
        None => lock(source, request.operation, settings.lock_timeout)?,
    };
    let committed = locked.commit_pieces(loaded.stored_bytes(), &sealed, backup)?;
    let mut backup_note = committed.backup.map_or_else(
        || "no backup".to_owned(),
        |path| format!("backup `{}`", path.display()),
    );
    if loaded.migrates {
        backup_note.push_str("; ");
        backup_note.push_str(crate::cli::encryption::migration_note(
            &settings.encryption,
            loaded.stored.is_some(),
        ));
    }
    printer.note(&format!(
        "{}; serial {} -> {}; {backup_note}",
        summary(plan),
        state.serial,
        state.serial + 1
    ));
    Ok(ExitStatus::Success)
}

/// Checks the lifecycle rules on `mutations` of `state` (the state `loaded` read), as a write of
/// them would: for a write that replaces the whole state (`restore`), the objects it drops.
pub(super) fn enforce_rules_on(
    loaded: &Loaded,
    state: &State<'_>,
    mutations: &[Mutation],
    force: bool,
    printer: &mut Printer,
) -> Result<(), CliError> {
    if mutations.is_empty() {
        return Ok(());
    }
    let plan = plan(state, mutations).map_err(|error| CliError::state(&loaded.source, &error))?;
    loaded.config.say(printer);
    let context = Context {
        catalog: &loaded.rules.catalog,
        config: loaded.config.config.as_ref(),
        policy: &loaded.policy,
    };
    enforce_rules(state, &plan, &context, force, printer)
}

/// Checks the lifecycle rules on `plan`: a violation refuses the write (exit 3) unless `force`, which
/// names each rule it overrides.
fn enforce_rules(
    state: &State<'_>,
    plan: &Plan,
    context: &Context<'_>,
    force: bool,
    printer: &mut Printer,
) -> Result<(), CliError> {
    let started = std::time::Instant::now();
    let violations = check(state, plan, context)?;
    tracing::debug!(
        violations = violations.len(),
        elapsed_ms = started.elapsed().as_millis(),
        "lifecycle rules checked"
    );
    if !violations.is_empty() {
        if !force {
            for violation in &violations {
                printer.error_line(&sanitize(&violation.to_string()));
            }
            let hints: Vec<String> = violations
                .iter()
                .filter_map(|violation| violation.hint.clone())
                .chain(std::iter::once(
                    "`--force` overrides these rules, naming each one it overrides".to_owned(),
                ))
                .collect();
            printer.hints(&hints);
            return Err(CliError {
                message: format!(
                    "blocked: {} refused by the lifecycle rules; nothing was written",
                    count(violations.len(), "change", "changes")
                ),
                hint: None,
                code: ExitStatus::Blocked,
            });
        }
        for violation in &violations {
            printer.warning(&format!("overriding {}", sanitize(&violation.to_string())));
        }
    }
    Ok(())
}

fn internal_error(source: &Source, what: &str) -> CliError {
    CliError::new(format!(
        "{source}: internal error, nothing was written: the rewritten state {what}"
    ))
    .with_hint("please report this with the state's shape (not its values)")
}

/// [`check_splice`]'s proof that the spliced new state holds what the plan says, without parsing
/// it whole; what it finds wrong is an internal error. Returns each step's new object text (`None`
/// when removed).
fn check_rendered<'t>(
    source: &Source,
    before: &State<'_>,
    plan: &Plan,
    applied: &'t Applied<'_>,
) -> Result<Vec<Option<&'t str>>, CliError> {
    check_splice(before, plan, applied)
        .map_err(|error: SpliceError| internal_error(source, &sanitize(&error.what)))
}

/// Proves a new text rewritten beyond a splice (a format-3 state's) is a state that holds what the
/// plan says, by parsing it whole: it parses, keeps the lineage, raises the serial by one, and holds
/// exactly the objects not removed.
fn check_parsed<'n>(
    source: &Source,
    before: &State<'_>,
    plan: &Plan,
    new_text: &'n str,
) -> Result<State<'n>, CliError> {
    let after = parse(new_text.as_bytes()).map_err(|error: StateError| {
        internal_error(
            source,
            &format!("does not parse: {}", error.describe("new state")),
        )
    })?;
    let removed = plan
        .steps
        .iter()
        .filter(|step| step.action == Action::Forget)
        .count();
    if after.lineage != before.lineage {
        return Err(internal_error(source, "changed lineage"));
    }
    if after.serial != before.serial + 1 {
        return Err(internal_error(
            source,
            &format!("has serial {}", after.serial),
        ));
    }
    if after.order.len() + removed != before.order.len() {
        return Err(internal_error(
            source,
            &format!(
                "holds {} objects where {} were expected",
                after.order.len(),
                before.order.len() - removed
            ),
        ));
    }
    Ok(after)
}

/// Each step's object text in a parsed new state (`None` when removed), in plan order.
fn objects_of_parsed<'n>(plan: &Plan, after: &State<'n>) -> Vec<Option<&'n str>> {
    // The new state's objects by address, once: a refresh may change thousands.
    let changed: std::collections::HashSet<&ObjectAddr> =
        plan.steps.iter().map(|step| &step.address).collect();
    let mut rendered: std::collections::HashMap<ObjectAddr, &'n str> =
        std::collections::HashMap::new();
    for (resource, candidate) in after.instances() {
        let address = ObjectAddr {
            instance: candidate.address(resource),
            deposed: candidate.deposed.as_deref().map(str::to_owned),
        };
        if changed.contains(&address) {
            rendered.insert(address, candidate.span.of(after.source));
        }
    }
    plan.steps
        .iter()
        .map(|step| {
            (step.action != Action::Forget)
                .then(|| rendered.get(&step.address).copied())
                .flatten()
        })
        .collect()
}

/// The unified diff of every object the plan changes (`after`: each step's new object text, in plan
/// order): on stdout, or on stderr when stdout carries the new state.
fn show_diff(
    state: &State<'_>,
    plan: &Plan,
    after: &[Option<&str>],
    reveal: bool,
    to_stderr: bool,
    printer: &mut Printer,
) -> Result<(), CliError> {
    let mut text = String::new();
    for (step, after_object) in plan.steps.iter().zip(after) {
        let (_, object) = object_of(state, step.object);
        text.push_str(&object_diff(
            &sanitize(&step.address.to_string()),
            &step.address.instance.resource.type_name,
            Some(object.span.of(state.source)),
            *after_object,
            reveal,
        ));
    }
    if to_stderr {
        let colored = if printer.color_stderr() {
            colorize(&text)
        } else {
            text
        };
        printer.report_on_stderr(&colored);
        Ok(())
    } else {
        let colored = if printer.color_stdout() {
            colorize(&text)
        } else {
            text
        };
        printer.out(&colored)
    }
}

/// `Tainted aws_instance.a`, `Removed 3 objects`: what the plan does, for the closing line.
fn summary(plan: &Plan) -> String {
    let verb = |action: Action| verbs(action).1;
    if let [step] = &plan.steps[..] {
        let address = sanitize(&step.address.to_string());
        let mut text = format!("{} `{address}`", verb(step.action));
        text[..1].make_ascii_uppercase();
        return text;
    }
    let first = plan.steps[0].action;
    if plan.steps.iter().all(|step| step.action == first) {
        let mut text = format!(
            "{} {}",
            verb(first),
            count(plan.steps.len(), "object", "objects")
        );
        text[..1].make_ascii_uppercase();
        text
    } else {
        format!("Changed {}", count(plan.steps.len(), "object", "objects"))
    }
}

/// `Would taint aws_instance.a`, `Would remove 3 objects`: what the plan would do, for the closing
/// line of a run that writes nothing.
fn would(plan: &Plan) -> String {
    let verb = |action: Action| verbs(action).0;
    let first = plan.steps[0].action;
    match &plan.steps[..] {
        [step] => format!("Would {} `{}`", verb(step.action), step.address),
        steps if steps.iter().all(|step| step.action == first) => format!(
            "Would {} {}",
            verb(first),
            count(steps.len(), "object", "objects")
        ),
        steps => format!("Would change {}", count(steps.len(), "object", "objects")),
    }
}

/// What `action` does, as the verb and as its past participle: `taint`, `tainted`.
fn verbs(action: Action) -> (&'static str, &'static str) {
    match action {
        Action::Taint => ("taint", "tainted"),
        Action::Untaint => ("untaint", "untainted"),
        Action::Forget => ("remove", "removed"),
        Action::Refresh => ("refresh", "refreshed"),
        Action::RefreshTaint => ("refresh and taint", "refreshed and tainted"),
        Action::RefreshUntaint => ("refresh and untaint", "refreshed and untainted"),
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::settings::WriteIntent;
    use crate::cli::{Cli, ColorChoice, Command};
    use crate::state::address::InstanceAddr;

    fn write_settings(argv: &[&str]) -> WriteSettings {
        match Cli::parse_from(argv).command {
            Command::Taint(args) => {
                WriteSettings::resolve(&args.write, WriteIntent::ByDefault).expect("valid flags")
            }
            other => panic!("{other:?}"),
        }
    }

    /// The refresh path: read without the lock, work, then lock and commit. A write that landed in
    /// between must make the commit refuse (exit 2), leaving the other writer's state alone.
    #[test]
    fn read_first_refuses_to_commit_over_a_state_changed_meanwhile() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("terraform.tfstate");
        let original = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/scan/clean.tfstate"),
        )
        .unwrap();
        std::fs::write(&path, &original).unwrap();
        let state_arg = path.to_string_lossy().into_owned();
        let args = write_settings(&["statectl", "taint", "x.y", &state_arg, "--backup", "-"]);
        let mut printer = Printer::new(ColorChoice::Never, false);
        let mut loaded = open(&args, "refresh", LockMode::ReadFirst, &mut printer).unwrap();
        assert!(
            loaded.locked.is_none(),
            "read-first holds no lock while it works"
        );
        let locked = loaded.locked.take();
        let state = parse(&loaded.bytes).unwrap();
        // Another writer changes the state while this one works.
        let other = String::from_utf8(original.clone()).unwrap().replacen(
            "\"serial\": ",
            "\"serial\": 9",
            1,
        );
        std::fs::write(&path, &other).unwrap();
        let request = WriteRequest {
            operation: "refresh",
            mutations: vec![
                Mutation::Untaint("terraform_data.release".parse::<InstanceAddr>().unwrap()),
                Mutation::Taint("aws_security_group.db".parse::<InstanceAddr>().unwrap()),
            ],
            warning: None,
            show_diff: true,
        };
        let error = finish(&args, &request, &loaded, locked, &state, &mut printer).unwrap_err();
        assert_eq!(error.code, ExitStatus::Error);
        assert!(
            error
                .message
                .contains("the state changed since statectl read it"),
            "{}",
            error.message
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), other);
        // Without the change in between, the same flow writes.
        std::fs::write(&path, &original).unwrap();
        let loaded = open(&args, "refresh", LockMode::ReadFirst, &mut printer).unwrap();
        let state = parse(&loaded.bytes).unwrap();
        assert_eq!(
            finish(&args, &request, &loaded, None, &state, &mut printer).unwrap(),
            ExitStatus::Success
        );
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .contains("\"status\": \"tainted\"")
        );
    }

    /// The check that replaces a second full parse must catch what a rendering bug could do to a
    /// changed object: break its JSON, or lose its key or status.
    #[test]
    fn a_broken_rendering_of_a_changed_object_is_an_internal_error() {
        let text = br#"{"version": 4, "serial": 1, "lineage": "l", "resources": [{"mode": "managed", "type": "a", "name": "b", "provider": "provider[\"registry.terraform.io/hashicorp/a\"]", "instances": [{"index_key": 0, "attributes": {}}]}]}"#;
        let state = parse(text).unwrap();
        let taint = [Mutation::Taint("a.b[0]".parse::<InstanceAddr>().unwrap())];
        let plan = plan(&state, &taint).unwrap();
        let source = Source::Path(PathBuf::from("s.tfstate"));
        let applied = render_tracked(&state, &plan);
        let objects = check_rendered(&source, &state, &plan, &applied).unwrap();
        assert_eq!(
            objects,
            [Some(
                r#"{"index_key":0,"status":"tainted","attributes":{}}"#
            )]
        );

        let (old, new) = applied.rendered().next().unwrap();
        let new = new.to_owned();
        for (broken, says) in [
            (new.replacen('{', "[", 1), "does not parse"),
            (
                new.replace("\"index_key\":0", "\"index_key\":1"),
                "another key or status",
            ),
            (
                new.replace("\"status\":\"tainted\",", ""),
                "another key or status",
            ),
        ] {
            let corrupted = render_tracked(&state, &plan).with_rendered_text(old, broken);
            let error = check_rendered(&source, &state, &plan, &corrupted).unwrap_err();
            assert!(
                error
                    .message
                    .starts_with("s.tfstate: internal error, nothing was written")
                    && error.message.contains(says),
                "{}",
                error.message
            );
        }
    }
}
