//! `statectl scan`: scans one or many states (folders searched for `*.tfstate`) in parallel and
//! reports findings as a table, JSON, SARIF, GitHub annotations, JUnit or Markdown. Exit 1 when a
//! finding reaches `--fail-on`.

mod json;
mod table;

use std::collections::HashSet;
use std::path::PathBuf;

use statectl_analysis::scan::{Rule, Rules, noting, scan};
use statectl_encryption::StateEncryption;
use statectl_state::state::notes::Noting;

use crate::cli::Printer;
use crate::cli::error::CliError;
use crate::cli::exit::ExitStatus;
use crate::cli::findings::{FailOn, Hints, Render, Report, ReportFormat, Tool, renderer};
use crate::cli::many::{Bar, Found, for_each_state, skipped_note};
use crate::cli::settings::{StatesArgs, StatesSettings};
use crate::reconcile::profile::Profiles;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub states: StatesArgs,

    /// A rules file (TOML). Default: `.statectl.toml` in the working directory or the nearest folder above.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,

    /// How to print the findings.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,

    /// Exit 1 when a finding reaches this severity.
    #[arg(long, value_enum, default_value_t = FailOn::Warning, value_name = "SEVERITY")]
    pub fail_on: FailOn,

    /// Also scan data sources (skipped by default: they hold no remote object to fix).
    #[arg(long)]
    pub data_sources: bool,
}

pub(crate) fn run(args: &Args, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    let mut rules = load_rules(args.rules.as_deref())?;
    rules.data_sources |= args.data_sources;
    rules.locations = args.format.shows_locations();
    let states = StatesSettings::resolve(&args.states)?;
    let sources = states.sources(printer)?;
    let noting = noting(&rules);
    let mut writer: Box<dyn Render> = match args.format {
        ReportFormat::Json => Box::new(json::Writer::new(args.fail_on)),
        format => renderer(format, &tool(), args.fail_on).unwrap_or_else(|| {
            Box::new(table::Table::new(
                scanned_root(states.paths),
                printer.color_stdout(),
                crate::cli::layout::terminal_width(),
            ))
        }),
    };
    let mut part = String::new();
    writer.start(&mut part);
    printer.out(&part)?;
    // What the run keeps of the states once each is reported: the exit code's facts, the hint
    // lines, and the states not read and skipped (their errors go to stderr after the report).
    let mut reached = false;
    let mut unread = Vec::new();
    let mut empty = Vec::new();
    let mut hints = Hints::default();
    let mut written = Ok(());
    for_each_state(
        &sources,
        states.jobs,
        &Bar::start(sources.len(), "scan", printer),
        |found| {
            let only = sources.len() == 1;
            scan_one(
                found,
                &rules,
                &noting,
                &states.encryption,
                states.version,
                only,
            )
        },
        Scanned::weight,
        |_, scanned| {
            let report = match scanned {
                Scanned::Empty(name) => return empty.push(name),
                Scanned::Report(report) => report,
            };
            for finding in &report.findings {
                reached |= args.fail_on.reached_by(finding.severity);
                if args.format == ReportFormat::Table {
                    hints.add(finding);
                }
            }
            if written.is_ok() {
                part.clear();
                writer.state(&report, &mut part);
                written = printer.out(&part);
            }
            if let Some(error) = report.error {
                unread.push(error);
            }
        },
    );
    if let Some(note) = skipped_note(&empty) {
        printer.note(&note);
    }
    written?;
    writer.finish_into(printer)?;
    for error in &unread {
        printer.error(error);
    }
    if args.format == ReportFormat::Table {
        printer.hints(&hints.lines());
    }
    Ok(if !unread.is_empty() {
        ExitStatus::Error
    } else if reached {
        ExitStatus::Findings
    } else {
        ExitStatus::Success
    })
}

/// What was scanned, when it is one folder or one prefix URL: the table names states relative to it.
fn scanned_root(paths: &[PathBuf]) -> Option<String> {
    let [path] = paths else {
        return None;
    };
    let text = path.to_string_lossy();
    let prefix = text.contains("://") && text.ends_with('/');
    (prefix || path.is_dir()).then(|| text.into_owned())
}

/// scan's detectors, for the shared report formats.
fn tool() -> Tool {
    Tool {
        command: "scan",
        rules: Rule::ALL.iter().map(|rule| rule.info()).collect(),
    }
}

pub(crate) fn load_rules(explicit: Option<&std::path::Path>) -> Result<Rules, CliError> {
    let path = match explicit {
        Some(path) => Some(path.to_owned()),
        None => std::env::current_dir()
            .ok()
            .and_then(|folder| Rules::discover(&folder)),
    };
    let mut rules = match path {
        Some(path) => Rules::load(&path)?,
        None => Rules::default(),
    };
    rules.catalog.refreshed_by_statectl = statectl_refreshes();
    Ok(rules)
}

/// The resource types a built-in refresh profile covers: the hints of scan, audit and the lifecycle
/// rules name `statectl refresh` for these (the analyses do not know the profiles themselves).
fn statectl_refreshes() -> HashSet<String> {
    Profiles::builtin()
        .iter()
        .map(|profile| profile.type_name.clone())
        .collect()
}

/// What scanning one state gave.
enum Scanned {
    Report(Report),
    /// A listed object that holds no state (its name).
    Empty(String),
}

impl Scanned {
    /// About the bytes it holds while it waits to be reported: its findings' text.
    fn weight(&self) -> usize {
        match self {
            Scanned::Report(report) => report
                .findings
                .iter()
                .map(|finding| {
                    finding.address.len() + finding.message.len() + finding.hint.len() + 256
                })
                .sum(),
            Scanned::Empty(name) => name.len(),
        }
    }
}

/// Scans one state; `only` when it is the run's one state, whose model and bytes are then left to
/// the process's exit (freeing them one allocation at a time cost a tenth of a large scan).
fn scan_one(
    found: &Found,
    rules: &Rules,
    noting: &Noting,
    encryption: &StateEncryption,
    version: Option<&str>,
    only: bool,
) -> Scanned {
    let source = found.source();
    let name = source.to_string();
    let failed = |error: CliError| {
        Scanned::Report(Report {
            name: name.clone(),
            instances: 0,
            findings: Vec::new(),
            error: Some(error),
        })
    };
    let bytes = match crate::cli::load::open_found(found, &source, encryption, version) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Scanned::Empty(name),
        Err(error) => return failed(error),
    };
    // The parse notes the attributes the detectors read, so they need not walk them all again,
    // and the lines their findings are on, when asked for. The detectors read the noted values
    // from the notes' copies, so a large mapped state's pages are given back as the parse passes
    // them (only the instances with findings are read again).
    let state = match bytes
        .parse_noting_reading_once(noting)
        .map_err(|error| CliError::state(&source, &error))
    {
        Ok(state) => state,
        Err(error) => return failed(error),
    };
    let detected = match scan(&state, rules) {
        Ok(detected) => detected,
        Err(error) => return failed(CliError::from(error)),
    };
    let report = Report {
        name: name.clone(),
        instances: detected.instances,
        findings: detected.findings,
        error: None,
    };
    if only {
        crate::cli::load::leave_to_exit(state);
        crate::cli::load::leave_to_exit(bytes);
    }
    Scanned::Report(report)
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;
    use statectl_analysis::scan::{Finding, Rule, Severity};
    use statectl_state::json::LineColumn;

    use super::*;
    use crate::cli::findings::render_all;

    #[test]
    fn a_format_that_prints_a_findings_line_is_the_one_that_asks_for_it() {
        let finding = Finding {
            rule: Rule::Tainted.info(),
            severity: Severity::Warning,
            address: "aws_instance.web".into(),
            resource_type: Some("aws_instance".into()),
            message: "tainted".into(),
            evidence: Vec::new(),
            hint: "untaint it".into(),
            location: Some(LineColumn {
                line: 98_765,
                column: 4_321,
            }),
        };
        for &format in ReportFormat::value_variants() {
            let mut writer: Box<dyn Render> = match format {
                ReportFormat::Json => Box::new(json::Writer::new(FailOn::Never)),
                format => renderer(format, &tool(), FailOn::Never)
                    .unwrap_or_else(|| Box::new(table::Table::new(None, false, None))),
            };
            let report = Report {
                name: "prod.tfstate".into(),
                instances: 1,
                findings: vec![finding.clone()],
                error: None,
            };
            let text = render_all(writer.as_mut(), &[report]).unwrap();
            assert!(text.contains("aws_instance.web"), "{format:?}: {text}");
            assert_eq!(
                text.contains("98765"),
                format.shows_locations(),
                "{format:?}: {text}"
            );
        }
    }
}
