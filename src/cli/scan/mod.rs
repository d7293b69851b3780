//! `statectl scan`: scans one or many states (folders searched for `*.tfstate`) in parallel and
//! reports findings as a table, JSON, SARIF, GitHub annotations, JUnit or Markdown. Exit 1 when a
//! finding reaches `--fail-on`.

mod json;
mod table;

use std::collections::HashSet;
use std::path::PathBuf;

use crate::cli::error::CliError;
use crate::cli::findings::{FailOn, Render, Report, ReportFormat, Tool, render_all, renderer};
use crate::cli::many::{Found, KeyArgs, KeyFilter, for_each_state, read_found, skipped_note};
use crate::cli::{Printer, exit};
use crate::reconcile::profile::Profiles;
use crate::scan::discover::state_files;
use crate::scan::{Rule, Rules, scan};
use crate::state::legacy::StateBytes;
use crate::state::source::Source;
use statectl_encryption::StateEncryption;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// State files, or folders searched recursively for `*.tfstate` (skipping `.terraform/`); `-` reads
    /// standard input; URLs (`s3://bucket/key`, `gs://...`, `azurerm://...`, `oci://...`,
    /// `https://...`) read remote states, and a prefix URL ending in `/` (`s3://bucket/prefix/`) every
    /// state below it. Default: the state of the backend `terraform init` recorded here (local:
    /// `terraform.tfstate`).
    #[arg(value_name = "STATE")]
    pub paths: Vec<PathBuf>,

    #[command(flatten)]
    pub backend: crate::cli::BackendArgs,

    #[command(flatten)]
    pub config: crate::cli::ConfigArgs,

    #[command(flatten)]
    pub keys: KeyArgs,

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

    /// How many states to read and scan at once (default: the number of CPUs; remote states wait on
    /// the network, so more than that pays off with a prefix URL).
    #[arg(long, short = 'j', visible_alias = "parallelism", value_name = "N", value_parser = crate::cli::settings::at_least_one)]
    pub jobs: Option<usize>,
}

pub(crate) fn run(args: &Args, printer: &mut Printer) -> Result<i32, CliError> {
    let mut rules = load_rules(args.rules.as_deref())?;
    rules.data_sources |= args.data_sources;
    let keys = KeyFilter::new(&args.keys)?;
    let encryption = crate::cli::encryption::load(&args.config)?;
    let sources = sources(&args.paths, &args.backend, &keys, printer)?;
    let scanned = for_each_state(&sources, args.jobs, "scan", |found| {
        scan_one(found, &rules, &encryption)
    });
    let mut empty = Vec::new();
    let reports: Vec<Report> = sources
        .iter()
        .zip(scanned)
        .filter_map(|(found, report)| {
            if report.is_none() {
                empty.push(found.source.to_string());
            }
            report
        })
        .collect();
    if let Some(note) = skipped_note(&empty) {
        printer.to_stderr(&note);
    }
    let text = if args.format == ReportFormat::Json {
        json::render(&reports, args.fail_on)
    } else {
        let mut renderer: Box<dyn Render> = renderer(args.format, &tool(), args.fail_on)
            .unwrap_or_else(|| {
                Box::new(table::Table::new(
                    scanned_root(&args.paths),
                    printer.color_stdout(),
                    crate::cli::layout::terminal_width(),
                ))
            });
        render_all(renderer.as_mut(), &reports)
    };
    printer.out(&text)?;
    let mut failed_to_read = false;
    for report in &reports {
        if let Some(error) = &report.error {
            printer.error(error);
            failed_to_read = true;
        }
    }
    if args.format == ReportFormat::Table {
        printer.hints(&table::hints(&reports));
    }
    let reached = reports
        .iter()
        .flat_map(|report| &report.findings)
        .any(|finding| args.fail_on.reached_by(finding.severity));
    Ok(if failed_to_read {
        exit::ERROR
    } else if reached {
        exit::FINDINGS
    } else {
        exit::SUCCESS
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

/// The states to scan, folders expanded; no argument means the state `terraform init` recorded.
/// `summary` takes the same.
pub(crate) fn sources(
    paths: &[PathBuf],
    backend: &crate::cli::BackendArgs,
    keys: &KeyFilter,
    printer: &mut Printer,
) -> Result<Vec<Found>, CliError> {
    let located = |arg: Option<&std::path::Path>, printer: &mut Printer| {
        let located = crate::cli::state_source::locate(arg, backend)?;
        if let Some(note) = &located.note {
            printer.to_stderr(&format!("{note}\n"));
        }
        Ok::<Found, CliError>(Found {
            source: located.source,
            listed: false,
        })
    };
    if paths.is_empty() {
        return Ok(vec![located(None, printer)?]);
    }
    let (urls, paths): (Vec<&PathBuf>, Vec<&PathBuf>) = paths
        .iter()
        .partition(|path| path.to_string_lossy().contains("://"));
    let mut remote = Vec::new();
    let mut listed = false;
    for url in urls {
        let text = url.to_string_lossy();
        match crate::cli::many::listed(&text, backend, keys, printer)? {
            Some(states) => {
                listed = true;
                remote.extend(states.into_iter().map(|source| Found {
                    source,
                    listed: true,
                }));
            }
            None => remote.push(located(Some(url), printer)?),
        }
    }
    if !listed && !keys.is_empty() {
        return Err(CliError::new(
            "`--include` and `--exclude` choose keys below a prefix URL (`s3://bucket/prefix/`), and none is named",
        ));
    }
    if remote.is_empty() && (backend.workspace.is_some() || !backend.backend_config.is_empty()) {
        return Err(CliError::new(
            "`--workspace` and `--backend-config` choose a backend's state, but only files are named",
        )
        .with_hint("leave the state arguments out to use the backend `terraform init` recorded here, or give a URL (`s3://bucket/key`)"));
    }
    if paths.is_empty() {
        return Ok(remote);
    }
    let (stdin, files): (Vec<&PathBuf>, Vec<&PathBuf>) =
        paths.into_iter().partition(|path| path.as_os_str() == "-");
    let files: Vec<PathBuf> = files.into_iter().cloned().collect();
    let mut sources: Vec<Found> = state_files(&files)
        .map_err(CliError::from)?
        .into_iter()
        .map(|path| Found {
            source: Source::Path(path),
            listed: false,
        })
        .collect();
    if !stdin.is_empty() {
        sources.insert(
            0,
            Found {
                source: Source::Stdin,
                listed: false,
            },
        );
    }
    sources.extend(remote);
    if sources.is_empty() {
        let named: Vec<String> = files
            .iter()
            .map(|path| path.display().to_string())
            .collect();
        return Err(
            CliError::new(format!("no `*.tfstate` files under {}", named.join(", ")))
                .with_hint("name state files, or folders that hold them"),
        );
    }
    Ok(sources)
}

/// One state's report; `None` for a listed object that holds no state.
fn scan_one(found: &Found, rules: &Rules, encryption: &StateEncryption) -> Option<Report> {
    let source = &found.source;
    let name = source.to_string();
    let failed = |error: CliError| {
        Some(Report {
            name: name.clone(),
            instances: 0,
            findings: Vec::new(),
            error: Some(error),
        })
    };
    let bytes = match read_found(found) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return None,
        Err(error) => return failed(error),
    };
    let bytes = match crate::cli::encryption::open(encryption, source, bytes) {
        Ok(plaintext) => StateBytes::new(plaintext),
        Err(error) => return failed(error),
    };
    let state = match bytes.parse() {
        Ok(state) => state,
        Err(error) => return failed(CliError::state(source, &error)),
    };
    Some(Report {
        name: name.clone(),
        // By address, as `list` and `summary` count them: a deposed object is not an instance.
        instances: crate::state::order::instance_groups(&state).len(),
        findings: scan(&state, rules),
        error: None,
    })
}
