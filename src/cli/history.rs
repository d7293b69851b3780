//! `statectl history [STATE]`: the versions the state's backend keeps (S3 object versions, the
//! backups beside a local state), newest first: id, time, serial, lineage, size, and what changed
//! from the version before (objects added, removed, changed; a lineage change or a serial going
//! down flagged, the marks of a bad push). A backend that keeps no versions says so in one line and
//! exits 0: nothing is wrong with the state or the request, there is only no history to show (the
//! commands that need a version, `--version` and `restore`, exit 2 there).

use serde_json::{Value, json};
use statectl_analysis::history::{Step, step};

use crate::cli::error::{CliError, echo, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::versions::{Keeper, not_a_state, read_plaintext};
use crate::cli::{Format, Printer, StateArg};
use crate::state::legacy::StateBytes;
use crate::state::source::Source;
use crate::state::store::lock_info::rfc3339_utc;
use crate::state::store::versions::{Kept, Version};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub state: StateArg,

    /// Show the newest N versions (each is read to tell its serial and changes); `0` shows all.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,

    /// How to print the versions.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// What one version holds, as far as the history tells.
enum Held {
    State {
        serial: u64,
        lineage: String,
        terraform_version: Option<String>,
    },
    /// A delete marker.
    Deleted,
    /// The version is not a state (or cannot be read): why, one line.
    Unreadable(String),
}

struct Row {
    version: Version,
    held: Held,
    /// From the readable version before it; `None` for the oldest one read.
    step: Option<Step>,
}

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    let encryption = crate::cli::encryption::load(&args.state.config)?;
    let located =
        crate::cli::state_source::locate(args.state.state.as_deref(), &args.state.backend)?;
    let source = &located.source;
    let keeper = Keeper::of(source)?;
    let kept = keeper.list()?;
    if let Some(note) = &located.note {
        printer.note(note);
    }
    let (versions, warnings) = match kept {
        Kept::Versions { versions, warnings } => (versions, warnings),
        Kept::Nothing { why, hint } => {
            printer.warning(&why);
            if let Some(hint) = hint {
                printer.hints(&[hint]);
            }
            if args.format == Format::Json {
                let document = json!({
                    "schema_version": 1,
                    "state": source.to_string(),
                    "versioning": false,
                    "why": why,
                    "versions": [],
                });
                printer.line(&pretty(&document))?;
            }
            return Ok(ExitStatus::Success);
        }
    };
    for warning in &warnings {
        printer.warning(&format!("{source}: {warning}"));
    }
    let shown = if args.limit == 0 {
        versions.len()
    } else {
        args.limit.min(versions.len())
    };
    let rows = read_rows(source, &keeper, &versions, shown, &encryption);
    if shown < versions.len() {
        printer.note(&format!(
            "the newest {shown} of {} versions; `--limit 0` shows them all",
            versions.len()
        ));
    }
    match args.format {
        Format::Text => printer.out(&table(&rows))?,
        Format::Json => printer.line(&pretty(&document(source, &rows)))?,
    }
    Ok(ExitStatus::Success)
}

/// The first `shown` versions read, each with its step from the readable version after it in
/// `versions` (older), which is read too when it is past `shown`. Two versions are held at a time.
fn read_rows(
    source: &Source,
    keeper: &Keeper<'_>,
    versions: &[Version],
    shown: usize,
    encryption: &statectl_encryption::StateEncryption,
) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::with_capacity(shown);
    // The newest readable version so far whose step is not known yet: its row and bytes.
    let mut waiting: Option<(usize, StateBytes)> = None;
    for (index, version) in versions.iter().enumerate() {
        if index >= shown && waiting.is_none() {
            break;
        }
        let read = if version.deleted {
            Err(Held::Deleted)
        } else {
            read_plaintext(source, keeper, version, encryption)
                .map_err(|error| Held::Unreadable(error.message))
        };
        // Each version is parsed twice at most: here, and as the newer side of the next step.
        let parsed = read.and_then(|bytes| match bytes.parse() {
            Ok(state) => {
                let held = Held::State {
                    serial: state.serial,
                    lineage: state.lineage.to_string(),
                    terraform_version: state.terraform_version.as_deref().map(str::to_owned),
                };
                if let Some((row, newer)) = waiting.take() {
                    let newer = newer.parse().expect("parsed when it was read");
                    rows[row].step = Some(step(&state, &newer));
                }
                drop(state);
                Ok((held, bytes))
            }
            Err(error) => Err(Held::Unreadable(
                not_a_state(source, version, &error).message,
            )),
        });
        let (held, bytes) = match parsed {
            Ok((held, bytes)) => (held, Some(bytes)),
            Err(held) => (held, None),
        };
        if index < shown {
            rows.push(Row {
                version: version.clone(),
                held,
                step: None,
            });
            if let Some(bytes) = bytes {
                waiting = Some((index, bytes));
            }
        }
    }
    rows
}

fn pretty(document: &Value) -> String {
    serde_json::to_string_pretty(document).expect("JSON values always serialize")
}

/// The version's time to the second, for the table (JSON keeps the fraction).
fn time(version: &Version) -> String {
    version.time.map_or_else(
        || "-".to_owned(),
        |time| {
            let text = rfc3339_utc(time);
            match text.split_once('.') {
                Some((seconds, _)) => format!("{seconds}Z"),
                None => text,
            }
        },
    )
}

/// `+1 -0 ~2`, then the flags of a bad push.
fn changes(row: &Row) -> String {
    let mut text = match (&row.held, &row.step) {
        (Held::Deleted, _) => return "deleted (a delete marker)".to_owned(),
        (Held::Unreadable(why), _) => return format!("not a state: {why}"),
        (Held::State { .. }, None) => return "(oldest read)".to_owned(),
        (Held::State { .. }, Some(step)) => format!(
            "+{} -{} ~{}",
            step.counts.added, step.counts.removed, step.counts.changed
        ),
    };
    if let Some(step) = &row.step {
        if step.lineage_changed {
            text.push_str("  LINEAGE CHANGED");
        }
        if step.serial_went_down {
            text.push_str("  SERIAL WENT DOWN");
        }
    }
    text
}

/// Who wrote a version, where the backend says (HCP Terraform: the user, and the run).
fn written_by(version: &Version) -> Option<String> {
    let extra = |name: &str| {
        version
            .extras
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| sanitize(value))
    };
    match (extra("user"), extra("run")) {
        (None, None) => None,
        (Some(user), None) => Some(user),
        (None, Some(run)) => Some(format!("({run})")),
        (Some(user), Some(run)) => Some(format!("{user} ({run})")),
    }
}

fn table(rows: &[Row]) -> String {
    let by = rows.iter().any(|row| written_by(&row.version).is_some());
    let mut header = vec!["", "VERSION", "TIME", "SERIAL", "LINEAGE", "SIZE"];
    if by {
        header.push("BY");
    }
    header.push("CHANGES");
    let mut lines = vec![header.into_iter().map(str::to_owned).collect::<Vec<_>>()];
    for row in rows {
        let (serial, lineage) = match &row.held {
            Held::State {
                serial, lineage, ..
            } => (serial.to_string(), sanitize(lineage)),
            _ => ("-".to_owned(), "-".to_owned()),
        };
        let mut line = vec![
            if row.version.latest { "*" } else { "" }.to_owned(),
            echo(&row.version.id),
            time(&row.version),
            serial,
            lineage,
            row.version
                .size
                .map_or_else(|| "-".to_owned(), |size| size.to_string()),
        ];
        if by {
            line.push(written_by(&row.version).unwrap_or_else(|| "-".to_owned()));
        }
        line.push(changes(row));
        lines.push(line);
    }
    crate::cli::layout::columns(&lines, "", &|_, cell| cell.to_owned())
}

/// `schema_version` 1 (README, "statectl history").
fn document(source: &Source, rows: &[Row]) -> Value {
    let versions: Vec<Value> = rows
        .iter()
        .map(|row| {
            let mut entry = json!({
                "id": row.version.id,
                "time": row.version.time.map(rfc3339_utc),
                "size": row.version.size,
                "latest": row.version.latest,
                "deleted": row.version.deleted,
                "extras": row.version.extras.iter().map(|(name, value)| ((*name).to_owned(), Value::from(value.as_str()))).collect::<serde_json::Map<_, _>>(),
            });
            match &row.held {
                Held::State {
                    serial,
                    lineage,
                    terraform_version,
                } => {
                    entry["serial"] = json!(serial);
                    entry["lineage"] = json!(lineage);
                    entry["terraform_version"] = json!(terraform_version);
                }
                Held::Deleted => {}
                Held::Unreadable(why) => entry["error"] = json!(why),
            }
            entry["changes"] = row.step.as_ref().map_or(Value::Null, |step| {
                json!({
                    "added": step.counts.added,
                    "removed": step.counts.removed,
                    "changed": step.counts.changed,
                    "lineage_changed": step.lineage_changed,
                    "serial_went_down": step.serial_went_down,
                })
            });
            entry
        })
        .collect();
    json!({
        "schema_version": 1,
        "state": source.to_string(),
        "versioning": true,
        "versions": versions,
    })
}
