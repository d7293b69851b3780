//! `statectl audit [STATE] [--plan PLAN_JSON] [--config DIR] [--policy FILE]`: before anyone destroys,
//! what the destroy (or the given plan) would do to each object, and what it must not do. Exit 3 when
//! a rule is violated, 1 when a finding reaches `--fail-on`, 0 when it is safe.

mod json;
mod table;

use std::path::PathBuf;

use statectl_analysis::audit::{Audit, Input, Plan, Rule, audit};

use crate::cli::error::{CliError, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::findings::{FailOn, Report, ReportFormat, Tool, render_all, renderer};
use crate::cli::lifecycle_inputs::{load_config, load_policy};
use crate::cli::settings::AuditSettings;
use crate::cli::{Printer, StateArg, load};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub state: StateArg,

    #[command(flatten)]
    pub version: crate::cli::VersionArg,

    /// A plan as `terraform show -json PLANFILE` (or `tofu show -json`) prints it: audit what it does
    /// instead of a destroy of everything.
    #[arg(long, value_name = "PLAN_JSON")]
    pub plan: Option<PathBuf>,

    /// A policy file protecting resource types or addresses. Default: the `[[protect]]` tables of the
    /// `.statectl.toml` found upward from the working directory.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,

    /// Do not apply the configuration's lifecycle rules (`prevent_destroy`, `destroy = false`,
    /// `removed` blocks), which are otherwise read from `--config DIR` or the working directory.
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,

    /// How to print the audit.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,

    /// Exit 1 when a finding reaches this severity (violations always exit 3).
    #[arg(long, value_enum, default_value_t = FailOn::Warning, value_name = "SEVERITY")]
    pub fail_on: FailOn,
}

/// The audit's rules, for the shared report formats.
fn tool() -> Tool {
    Tool {
        command: "audit",
        rules: Rule::ALL.iter().map(|rule| rule.info()).collect(),
    }
}

pub(super) fn run(
    settings: &AuditSettings<'_>,
    printer: &mut Printer,
) -> Result<ExitStatus, CliError> {
    let rules = crate::cli::scan::load_rules(None)?;
    let policy = load_policy(settings.policy, &rules)?;
    // A plan that cannot be audited is refused before anything else is said.
    let plan = settings.plan.map(read_plan).transpose()?;
    let config = load_config(settings.config, printer)?;
    let (source, bytes) = load::read(settings.state, settings.version, printer)?;
    let state = load::parse_state(&source, &bytes)?;
    config.say(printer);
    let result = audit(&Input {
        state: &state,
        plan: plan.as_ref(),
        config: config.config.as_ref(),
        policy: &policy,
        catalog: &rules.catalog,
    })?;
    let report = Report {
        name: source.to_string(),
        instances: result.entries.len(),
        findings: result.findings.clone(),
        error: None,
    };
    let reports = [report];
    let text = match settings.format {
        ReportFormat::Table => table::render(
            &result,
            plan.is_some(),
            crate::cli::layout::terminal_width(),
        ),
        ReportFormat::Json => json::render(&result, &reports[0].name, settings, plan.is_some()),
        ReportFormat::Markdown => table::markdown(&result, plan.is_some()),
        format => match renderer(format, &tool(), settings.fail_on) {
            Some(mut renderer) => render_all(renderer.as_mut(), &reports)?,
            None => String::new(),
        },
    };
    printer.out(&text)?;
    if settings.format == ReportFormat::Table {
        printer.hints(&hints(&result));
    }
    Ok(exit_code(&result, settings.fail_on))
}

/// 3 when a rule is violated, 1 when a finding reaches `fail_on`, else 0.
pub(super) fn exit_code(result: &Audit, fail_on: FailOn) -> ExitStatus {
    if result.violations() > 0 {
        ExitStatus::Blocked
    } else if result
        .findings
        .iter()
        .any(|finding| fail_on.reached_by(finding.severity))
    {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    }
}

/// Reads `--plan`: Terraform's JSON plan. A device or a named pipe is refused before reading and a
/// pipe the shell handed over is read up to the same bound as a state; the binary plan file gets the command that turns it into JSON.
fn read_plan(path: &std::path::Path) -> Result<Plan, CliError> {
    let cannot = |problem: String| {
        CliError::new(format!(
            "{}: cannot read the plan: {problem}",
            path.display()
        ))
    };
    let io = |error: std::io::Error| cannot(crate::state::source::problem(&error));
    let metadata = std::fs::metadata(path).map_err(io)?;
    crate::state::bytes::readable(path, &metadata).map_err(|error| {
        let refusal = io(error);
        if std::os::unix::fs::FileTypeExt::is_fifo(&metadata.file_type()) {
            refusal.with_hint("hand a plan over as a file or through a shell's `--plan <(terraform show -json PLAN)`")
        } else {
            refusal
        }
    })?;
    let file = std::fs::File::open(path).map_err(io)?;
    let bytes = crate::state::bytes::read_stream(file, Vec::new()).map_err(io)?;
    if bytes.starts_with(b"PK\x03\x04") {
        return Err(cannot(
            "it is a binary plan file (`terraform plan -out`); audit reads the plan as JSON"
                .to_owned(),
        )
        .with_hint("`terraform show -json PLAN > plan.json`, then `--plan plan.json`"));
    }
    // OpenTofu's encrypted plan file is the envelope around the plan; damaged envelopes are
    // left to the plan parser's own error.
    if let Ok(Some(_)) = statectl_encryption::envelope::parse(&bytes) {
        return Err(cannot(
            "it is an OpenTofu-encrypted plan file; audit reads the plan as JSON".to_owned(),
        )
        .with_hint("`tofu show -json PLAN > plan.json` (with the plan's encryption configured), then `--plan plan.json`"));
    }
    let text = std::str::from_utf8(&bytes).map_err(|error| {
        cannot(format!(
            "it is not UTF-8 text (byte {})",
            error.valid_up_to()
        ))
    })?;
    Plan::parse(text).map_err(|error| {
        let place = error.at.map_or_else(String::new, |at| format!(":{at}"));
        CliError {
            message: format!("{}{place}: {}", path.display(), sanitize(&error.message)),
            hint: error.hint,
            code: ExitStatus::Error,
        }
    })
}

/// The `hint:` lines for people (stderr).
fn hints(result: &Audit) -> Vec<String> {
    crate::cli::findings::hints(result.findings.iter())
}
