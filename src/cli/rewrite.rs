//! What every command that changes a state shares: the flags (`--dry-run`, `--force`,
//! `--lock-timeout`, `--backup`, `-o -`, `--config`, `--policy`), and the one flow from mutations to a
//! written state: lock, read, plan, lifecycle rules, diff, self-check, commit.
//!
//! A single mutation locks before it reads, so a `--lock-timeout` wait ends with the change made on
//! top of whatever the other writer wrote. `--dry-run` and `-o -` write no file and take no lock.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::duration::parse_duration;
use crate::cli::error::{CliError, sanitize};
use crate::cli::object_diff::{colorize, object_diff};
use crate::cli::{Printer, StateArg, exit, load};
use crate::policy::config::Config;
use crate::policy::file::Policy;
use crate::policy::lifecycle::{Context, check};
use crate::scan::rules::{FILE_NAME, Rules};
use crate::state::mutate::{Action, Mutation, Plan, object_of, plan, render};
use crate::state::source::Source;
use crate::state::store::{Backup, Locked};
use crate::state::{State, StateError, parse};

/// The flags of every command that writes a state.
#[derive(Debug, clap::Args)]
pub struct WriteArgs {
    #[command(flatten)]
    pub state: StateArg,

    /// Show what would change and write nothing (exit 1 when something would change).
    #[arg(long)]
    pub dry_run: bool,

    /// Write even when lifecycle rules refuse the change; each override is printed.
    #[arg(long)]
    pub force: bool,

    /// How long to wait for the state lock, as Terraform's `-lock-timeout` (e.g. `30s`, `2m`).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "0s")]
    pub lock_timeout: Duration,

    /// Where to back the old state up; `-` for no backup. Default: `<STATE>.<unix-seconds>.backup`, as
    /// `terraform state rm` writes.
    #[arg(long, value_name = "PATH")]
    pub backup: Option<PathBuf>,

    /// Write the new state to standard output instead of the file (`-o -`), e.g. for
    /// `terraform state push -`; no lock, no backup.
    #[arg(short = 'o', long = "output", value_name = "-", value_parser = only_stdout)]
    pub output: Option<String>,

    /// Read `lifecycle` blocks (`prevent_destroy`, `destroy = false`) from the Terraform
    /// configuration in DIR (the root module) and the local modules it calls.
    #[arg(long, value_name = "DIR")]
    pub config: Option<PathBuf>,

    /// A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the
    /// `.statectl.toml` found upward from the working directory.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,

    /// Show sensitive values in the diff instead of masking them.
    #[arg(long)]
    pub show_sensitive: bool,
}

fn only_stdout(value: &str) -> Result<String, String> {
    if value == "-" {
        Ok(value.to_owned())
    } else {
        Err(
            "only `-` (standard output) is supported; to write another file, copy the state first"
                .to_owned(),
        )
    }
}

/// What one command asks for: its name (for the lock info and messages), and its mutations.
#[derive(Debug)]
pub struct Request {
    pub operation: &'static str,
    pub mutations: Vec<Mutation>,
    /// Said once the change is known to go ahead (or would, with `--dry-run`).
    pub warning: Option<&'static str>,
}

/// Runs the flow for `request` and returns the exit code.
pub fn rewrite(
    args: &WriteArgs,
    request: &Request,
    printer: &mut Printer,
) -> Result<i32, CliError> {
    let source = Source::from_arg(args.state.state.as_deref());
    let to_stdout = args.output.is_some();
    if source == Source::Stdin && !to_stdout && !args.dry_run {
        return Err(CliError::new("cannot write a state back to standard input")
            .with_hint("add `-o -` to write the new state to standard output (`terraform state pull | statectl taint X - -o - | terraform state push -`)"));
    }
    let rules = crate::cli::scan::load_rules(None)?;
    let policy = load_policy(args.policy.as_deref(), &rules)?;
    let config = args
        .config
        .as_deref()
        .map(|dir| {
            Config::read(dir).map_err(|error| {
                let mut cli = CliError::new(sanitize(&error.message));
                cli.hint = error.hint;
                cli
            })
        })
        .transpose()?;
    if let Some(config) = &config {
        for skipped in &config.skipped_modules {
            printer.warning(&format!(
                "module `{}` (source `{}`) is not local; its lifecycle blocks were not read",
                skipped.module.join("."),
                sanitize(&skipped.source)
            ));
        }
    }
    let locked = match (&source, args.dry_run || to_stdout) {
        (Source::Path(path), false) => Some(
            Locked::acquire(
                path,
                &format!("statectl {}", request.operation),
                args.lock_timeout,
            )
            .map_err(|error| store_error(&source, error))?,
        ),
        _ => None,
    };
    let bytes = match &locked {
        Some(locked) => locked.read().map_err(|error| store_error(&source, error))?,
        None => source
            .read()
            .map_err(|error| CliError::state(&source, &error))?,
    };
    let state = load::parse_state(&source, &bytes)?;
    let plan =
        plan(&state, &request.mutations).map_err(|error| CliError::state(&source, &error))?;
    for unchanged in &plan.unchanged {
        printer.warning(&format!(
            "`{}` is {}; nothing to change",
            unchanged.address, unchanged.why
        ));
    }
    let context = Context {
        catalog: &rules.catalog,
        config: config.as_ref(),
        policy: &policy,
    };
    let violations = check(&state, &plan, &context);
    if !violations.is_empty() {
        if !args.force {
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
                code: exit::BLOCKED,
            });
        }
        for violation in &violations {
            printer.warning(&format!("overriding {}", sanitize(&violation.to_string())));
        }
    }
    if plan.is_empty() {
        if to_stdout {
            printer.out(state.source)?;
        }
        return Ok(exit::SUCCESS);
    }
    if let Some(warning) = request.warning {
        printer.warning(warning);
    }
    let new_text = render(&state, &plan);
    let after = check_written(&source, &state, &plan, &new_text)?;
    show_diff(
        &state,
        &plan,
        &after,
        args.show_sensitive,
        to_stdout,
        printer,
    )?;
    drop(after);
    if args.dry_run {
        printer.to_stderr(&format!(
            "{}; nothing written (--dry-run)\n",
            summary(&plan)
        ));
        return Ok(exit::FINDINGS);
    }
    if to_stdout {
        printer.out(&new_text)?;
        return Ok(exit::SUCCESS);
    }
    let locked = locked.expect("a file write holds the lock");
    let backup = match args.backup.as_deref() {
        None => Backup::Timestamped,
        Some(path) if path.as_os_str() == "-" => Backup::Skip,
        Some(path) => Backup::At(path.to_owned()),
    };
    let committed = locked
        .commit(&bytes, new_text.as_bytes(), &backup)
        .map_err(|error| store_error(&source, error))?;
    let backup_note = committed.backup.map_or_else(
        || "no backup".to_owned(),
        |path| format!("backup `{}`", path.display()),
    );
    printer.to_stderr(&format!(
        "{}; serial {} -> {}; {backup_note}\n",
        summary(&plan),
        state.serial,
        state.serial + 1
    ));
    Ok(exit::SUCCESS)
}

/// `--policy FILE`, or the `[[protect]]` tables of the rules file scan found.
fn load_policy(explicit: Option<&Path>, rules: &Rules) -> Result<Policy, CliError> {
    let loaded = match (explicit, &rules.source) {
        (Some(path), _) => Policy::load(path, true),
        (None, Some(path)) if path.file_name().is_some_and(|name| name == FILE_NAME) => {
            Policy::load(path, false)
        }
        _ => Ok(Policy::default()),
    };
    loaded.map_err(|message| {
        CliError::new(message).with_hint("see README, \"Lifecycle rules\", for the policy format")
    })
}

/// Proves the new text is a state that holds what the plan says, before any byte is written: it
/// parses, keeps the lineage, raises the serial by one, and holds exactly the objects not removed.
fn check_written<'n>(
    source: &Source,
    before: &State<'_>,
    plan: &Plan,
    new_text: &'n str,
) -> Result<State<'n>, CliError> {
    let internal = |what: String| {
        CliError::new(format!(
            "{source}: internal error, nothing was written: the rewritten state {what}"
        ))
        .with_hint("please report this with the state's shape (not its values)")
    };
    let after = parse(new_text.as_bytes()).map_err(|error: StateError| {
        internal(format!("does not parse: {}", error.describe("new state")))
    })?;
    let removed = plan
        .steps
        .iter()
        .filter(|step| step.action == Action::Forget)
        .count();
    if after.lineage != before.lineage {
        return Err(internal("changed lineage".to_owned()));
    }
    if after.serial != before.serial + 1 {
        return Err(internal(format!("has serial {}", after.serial)));
    }
    if after.order.len() + removed != before.order.len() {
        return Err(internal(format!(
            "holds {} objects where {} were expected",
            after.order.len(),
            before.order.len() - removed
        )));
    }
    Ok(after)
}

/// The unified diff of every object the plan changes: on stdout, or on stderr when stdout carries the
/// new state.
fn show_diff(
    state: &State<'_>,
    plan: &Plan,
    after: &State<'_>,
    reveal: bool,
    to_stderr: bool,
    printer: &mut Printer,
) -> Result<(), CliError> {
    let mut text = String::new();
    for step in &plan.steps {
        let (_, object) = object_of(state, step.object);
        let before = object.span.of(state.source);
        let after_object = (step.action != Action::Forget)
            .then(|| {
                after
                    .instances()
                    .find(|(resource, candidate)| {
                        candidate.address(resource) == step.address.instance
                            && candidate.deposed.as_deref() == step.address.deposed.as_deref()
                    })
                    .map(|(_, candidate)| candidate.span.of(after.source))
            })
            .flatten();
        text.push_str(&object_diff(
            &sanitize(&step.address.to_string()),
            Some(before),
            after_object,
            reveal,
        ));
    }
    if to_stderr {
        let colored = if printer.color_stderr() {
            colorize(&text)
        } else {
            text
        };
        printer.to_stderr(&colored);
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
    let verb = |action: Action| match action {
        Action::Taint => "tainted",
        Action::Untaint => "untainted",
        Action::Forget => "removed",
        Action::Refresh => "refreshed",
    };
    if let [step] = &plan.steps[..] {
        let mut text = format!("{} `{}`", verb(step.action), step.address);
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

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn store_error(source: &Source, error: crate::state::store::StoreError) -> CliError {
    let _ = source;
    CliError {
        message: error.message,
        hint: error.hint,
        code: exit::ERROR,
    }
}
