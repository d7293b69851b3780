//! `statectl diff OLD NEW`: what differs between two states, readable (a unified diff of each changed
//! object), as a summary (`--stat`), as JSON or as Markdown; exit 0 when they hold the same content,
//! 1 when they differ. The comparison itself is `statectl_analysis::diff`'s; this file only renders it.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use statectl_analysis::diff::{self, Action, Header, ObjectChange, OutputChange, StateDiff};

use crate::cli::error::{CliError, sanitize};
use crate::cli::exit::ExitStatus;
use crate::cli::object_diff::{colorize, object_diff_values};
use crate::cli::settings::{DiffOutput, DiffSettings};
use crate::cli::style::{Style, paint};
use crate::cli::{Printer, load};
use crate::state::State;
use crate::state::mutate::object_of;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The old state; `-` reads standard input.
    #[arg(value_name = "OLD")]
    pub old: PathBuf,

    /// The new state; `-` reads standard input. Default: OLD again, for two versions of one state
    /// (`--old-version`, `--new-version`).
    #[arg(value_name = "NEW")]
    pub new: Option<PathBuf>,

    /// Compare this earlier version of OLD (an id `statectl history` prints, or `~N`).
    #[arg(long, value_name = "V")]
    pub old_version: Option<String>,

    /// Compare this earlier version of NEW (default: NEW's current state).
    #[arg(long, value_name = "V")]
    pub new_version: Option<String>,

    #[command(flatten)]
    pub backend: crate::cli::BackendArgs,

    /// One line per changed object saying what changed in it, then the totals.
    #[arg(long)]
    pub stat: bool,

    /// How to print the differences.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,

    #[command(flatten)]
    pub config: crate::cli::ConfigArgs,

    /// Show sensitive values instead of masking them.
    #[arg(long)]
    pub show_sensitive: bool,
}

/// Output format of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// Header and output changes, then each object with the unified diff of its JSON (`table` is
    /// the same)
    #[value(alias = "table")]
    Text,
    /// One document, `schema_version` 1 (see README).
    Json,
    /// A summary table and a diff block per changed object, for a pull-request comment.
    Markdown,
}

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    let settings = DiffSettings::resolve(args)?;
    let encryption = crate::cli::encryption::load(&args.config)?;
    let mut read = |state: &Path, version: &Option<String>| {
        load::read_at(
            Some(state),
            &args.backend,
            &encryption,
            version.as_deref(),
            printer,
        )
    };
    let (old_source, old_bytes) = read(&settings.old, &args.old_version)?;
    let (new_source, new_bytes) = read(&settings.new, &args.new_version)?;
    // The two parses are independent and most of the time on large states: one each on its own
    // thread. OLD's error is reported first whichever fails.
    let (old, new) = std::thread::scope(|scope| {
        let new = scope.spawn(|| load::parse_state(&new_source, &new_bytes));
        let old = load::parse_state(&old_source, &old_bytes);
        (old, new.join().expect("parsing does not panic"))
    });
    let (old, new) = (old?, new?);
    let mut found = diff::diff(&old, &new);
    let reveal = settings.reveal;
    if !reveal {
        found.mask_sensitive();
    }
    let states = States {
        old: &old,
        new: &new,
        reveal,
    };
    let color = printer.color_stdout();
    match settings.output {
        DiffOutput::Text | DiffOutput::Stat if found.is_equal() => {}
        DiffOutput::Stat => printer.out(&stat(&found, color))?,
        DiffOutput::Text => printer.out(&text(&found, &states, color))?,
        DiffOutput::Json => {
            let document = document(&found, &settings, &old, &new);
            printer.json_line(&document)?;
        }
        DiffOutput::Markdown => printer.out(&markdown(&found, &states))?,
    }
    Ok(ExitStatus::findings_if(!found.is_equal()))
}

/// The two states, for rendering the objects' text diffs.
struct States<'s, 'a> {
    old: &'s State<'a>,
    new: &'s State<'a>,
    reveal: bool,
}

impl States<'_, '_> {
    /// The unified diff of one object as pretty JSON, the new side aligned to the old side's member
    /// order and number spellings so that only real changes show. Masked unless `reveal`; every line
    /// made safe for a terminal.
    fn object_diff(&self, object: &ObjectChange) -> String {
        let read = |state: &State<'_>, at| {
            let (_, instance) = object_of(state, at);
            crate::json::parse_value(instance.span.of(state.source)).ok()
        };
        let before = object.old.and_then(|at| read(self.old, at));
        let mut after = object.new.and_then(|at| read(self.new, at));
        if let (Some(before), Some(after)) = (&before, &mut after) {
            diff::align(before, after);
        }
        let label = sanitize(&object.address.to_string());
        let type_name = &object.address.instance.resource.type_name;
        let text = object_diff_values(&label, type_name, before, after, self.reveal);
        let mut safe = String::with_capacity(text.len());
        for line in text.lines() {
            safe.push_str(&sanitize(line));
            safe.push('\n');
        }
        safe
    }

    /// The provider lines of an object whose managing provider changed.
    fn provider_change(&self, object: &ObjectChange) -> Option<(String, String)> {
        let changes = object.changes()?;
        if !changes.fields.iter().any(|field| field == "provider") {
            return None;
        }
        let provider = |state: &State<'_>, at| {
            let (resource, instance) = object_of(state, at);
            State::provider_of(resource, instance)
                .map_or_else(|| "(none)".to_owned(), |provider| sanitize(&provider.text))
        };
        Some((
            provider(self.old, object.old?),
            provider(self.new, object.new?),
        ))
    }
}

/// `serial: 4 -> 5`, one line per changed header field.
fn header_lines(header: &Header) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some((old, new)) = header.version {
        lines.push(format!("version: {old} -> {new}"));
    }
    if let Some((old, new)) = &header.terraform_version {
        let shown = |version: &Option<String>| {
            version
                .as_deref()
                .map_or_else(|| "(none)".to_owned(), sanitize)
        };
        lines.push(format!(
            "terraform_version: {} -> {}",
            shown(old),
            shown(new)
        ));
    }
    if let Some((old, new)) = header.serial {
        lines.push(format!("serial: {old} -> {new}"));
    }
    if let Some((old, new)) = &header.lineage {
        lines.push(format!("lineage: {} -> {}", sanitize(old), sanitize(new)));
    }
    lines
}

/// An output value as one line of compact JSON (already masked when it must be).
fn compact(value: &Value) -> String {
    sanitize(&serde_json::to_string(value).expect("JSON values always serialize"))
}

/// `+ output.name = "x"`, `~ output.name: "x" -> "y"`: one output's line in the text format.
fn output_line(output: &OutputChange) -> String {
    let name = sanitize(&output.name);
    let sign = output.action.sign();
    match (&output.old, &output.new) {
        (Some(old), Some(new)) => {
            let mut line = format!("{sign} output.{name}");
            if output.what.contains(&"value") {
                let _ = write!(line, ": {} -> {}", compact(&old.value), compact(&new.value));
            }
            let mut notes = Vec::new();
            if output.what.contains(&"type") {
                notes.push("type changed".to_owned());
            }
            if output.what.contains(&"sensitive") {
                notes.push(format!("sensitive: {} -> {}", old.sensitive, new.sensitive));
            }
            if !notes.is_empty() {
                let _ = write!(line, " ({})", notes.join(", "));
            }
            line
        }
        (Some(side), None) | (None, Some(side)) => {
            format!("{sign} output.{name} = {}", compact(&side.value))
        }
        (None, None) => format!("{sign} output.{name}"),
    }
}

/// `+`, `-` or `~`, then the address, colored for a terminal.
fn sign_line(action: Action, address: &str, color: bool) -> String {
    let line = format!("{} {address}", action.sign());
    let style = match action {
        Action::Added => Style::Added,
        Action::Removed => Style::Removed,
        Action::Changed => Style::Changed,
    };
    paint(style, &line, color)
}

/// The readable diff from `old` to `new` (masked unless `reveal`), as `statectl diff` prints it:
/// what `restore` shows before it writes.
pub(super) fn readable(old: &State<'_>, new: &State<'_>, reveal: bool, color: bool) -> String {
    let mut found = diff::diff(old, new);
    if !reveal {
        found.mask_sensitive();
    }
    text(&found, &States { old, new, reveal }, color)
}

/// The readable format: header changes, outputs, then each object with the diff of its JSON.
fn text(found: &StateDiff, states: &States<'_, '_>, color: bool) -> String {
    let mut out = String::new();
    for line in header_lines(&found.header) {
        out.push_str(&line);
        out.push('\n');
    }
    for output in &found.outputs {
        out.push_str(&output_line(output));
        out.push('\n');
    }
    for object in &found.objects {
        let address = sanitize(&object.address.to_string());
        out.push_str(&sign_line(object.action(), &address, color));
        out.push('\n');
        if object.changes().is_none() {
            continue;
        }
        if let Some((old, new)) = states.provider_change(object) {
            let _ = writeln!(out, "provider: {old} -> {new}");
        }
        let body = states.object_diff(object);
        out.push_str(&if color { colorize(&body) } else { body });
    }
    out
}

/// `3 attributes, status`: what changed inside an object.
fn what_changed(object: &ObjectChange) -> String {
    let Some(changes) = object.changes() else {
        return String::new();
    };
    let mut parts = Vec::new();
    match changes.attributes.len() {
        0 => {}
        1 => parts.push("1 attribute".to_owned()),
        count => parts.push(format!("{count} attributes")),
    }
    parts.extend(changes.fields.iter().map(|field| sanitize(field)));
    parts.join(", ")
}

/// `--stat`: header changes, one line per output and object, then the totals.
fn stat(found: &StateDiff, color: bool) -> String {
    let mut out = String::new();
    for line in header_lines(&found.header) {
        out.push_str(&line);
        out.push('\n');
    }
    let mut rows: Vec<(Action, String, String)> = Vec::new();
    for output in &found.outputs {
        rows.push((
            output.action,
            format!("output.{}", sanitize(&output.name)),
            output.what.join(", "),
        ));
    }
    for object in &found.objects {
        rows.push((
            object.action(),
            sanitize(&object.address.to_string()),
            what_changed(object),
        ));
    }
    // Aligned like `git diff --stat`, unless one very long address would push every line right.
    let width = rows
        .iter()
        .map(|(_, address, _)| address.chars().count())
        .filter(|&width| width <= 60)
        .max()
        .unwrap_or(0);
    for (action, address, what) in &rows {
        out.push_str(&sign_line(*action, address, color));
        if !what.is_empty() {
            let pad = width.saturating_sub(address.chars().count()) + 2;
            let _ = write!(out, "{:pad$}{what}", "");
        }
        out.push('\n');
    }
    out.push_str(&totals(found));
    out.push('\n');
    out
}

/// `2 added, 1 removed, 3 changed`, counting objects; outputs follow when any changed.
fn totals(found: &StateDiff) -> String {
    let counts = found.counts();
    let mut line = format!(
        "{} added, {} removed, {} changed",
        counts.added, counts.removed, counts.changed
    );
    if !found.outputs.is_empty() {
        let count = |action| {
            found
                .outputs
                .iter()
                .filter(|output| output.action == action)
                .count()
        };
        let _ = write!(
            line,
            "; outputs: {} added, {} removed, {} changed",
            count(Action::Added),
            count(Action::Removed),
            count(Action::Changed)
        );
    }
    line
}

/// The `diff --format json` document (schema version 1); values already masked unless
/// `--show-sensitive`.
fn document(found: &StateDiff, settings: &DiffSettings, old: &State<'_>, new: &State<'_>) -> Value {
    let side = |path: &Path, state: &State<'_>| {
        json!({
            "path": path.to_string_lossy(),
            "version": state.version,
            "terraform_version": state.terraform_version,
            "serial": state.serial,
            "lineage": state.lineage,
        })
    };
    let mut changes = serde_json::Map::new();
    let header = &found.header;
    if let Some((old, new)) = header.version {
        changes.insert("version".into(), json!({"old": old, "new": new}));
    }
    if let Some((old, new)) = &header.terraform_version {
        changes.insert("terraform_version".into(), json!({"old": old, "new": new}));
    }
    if let Some((old, new)) = header.serial {
        changes.insert("serial".into(), json!({"old": old, "new": new}));
    }
    if let Some((old, new)) = &header.lineage {
        changes.insert("lineage".into(), json!({"old": old, "new": new}));
    }
    let outputs = |action: Action| -> Vec<Value> {
        found
            .outputs
            .iter()
            .filter(|output| output.action == action)
            .map(|output| {
                json!({
                    "name": output.name,
                    "sensitive": output.sensitive(),
                    "what": output.what,
                    "old": output.old.as_ref().map(|side| &side.value),
                    "new": output.new.as_ref().map(|side| &side.value),
                })
            })
            .collect()
    };
    let objects: Vec<Value> = found
        .objects
        .iter()
        .map(|object| {
            let changes = object.changes();
            json!({
                "address": object.address.instance.to_string(),
                "deposed": object.address.deposed,
                "action": object.action().name(),
                "fields": changes.map_or(&[][..], |changes| &changes.fields[..]),
                "attributes": changes.map_or_else(Vec::new, |changes| changes
                    .attributes
                    .iter()
                    .map(|attribute| json!({
                        "path": attribute.path.to_string(),
                        "action": attribute.action.name(),
                        "old": attribute.old,
                        "new": attribute.new,
                    }))
                    .collect()),
            })
        })
        .collect();
    json!({
        "schema_version": 1,
        "equal": found.is_equal(),
        "sensitive_masked": !settings.reveal,
        "old": side(&settings.old, old),
        "new": side(&settings.new, new),
        "changes": changes,
        "outputs": {
            "added": outputs(Action::Added),
            "removed": outputs(Action::Removed),
            "changed": outputs(Action::Changed),
        },
        "objects": objects,
    })
}

/// Text as a Markdown code span that survives a table cell: pipes escaped, a span of backticks
/// fenced by more of them.
fn code(text: &str) -> String {
    let text = sanitize(text).replace('|', "\\|");
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// `--format markdown`: the totals, header changes, a table of what changed, and a `diff` block per
/// changed object.
fn markdown(found: &StateDiff, states: &States<'_, '_>) -> String {
    let mut out = String::new();
    if found.is_equal() {
        out.push_str("The states are equal.\n");
        return out;
    }
    let _ = writeln!(out, "**{}**\n", totals(found));
    let header = header_lines(&found.header);
    if !header.is_empty() {
        for line in header {
            let (field, change) = line.split_once(": ").unwrap_or((&line, ""));
            let _ = writeln!(out, "- `{field}`: {}", change.replace('|', "\\|"));
        }
        out.push('\n');
    }
    if !found.outputs.is_empty() || !found.objects.is_empty() {
        out.push_str("| action | address | what changed |\n|---|---|---|\n");
        for output in &found.outputs {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                output.action.name(),
                code(&format!("output.{}", output.name)),
                output.what.join(", ")
            );
        }
        for object in &found.objects {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                object.action().name(),
                code(&object.address.to_string()),
                what_changed(object).replace('|', "\\|")
            );
        }
    }
    for object in found
        .objects
        .iter()
        .filter(|object| object.changes().is_some())
    {
        let body = states.object_diff(object);
        if body.is_empty() {
            continue;
        }
        // A fence longer than any run of backticks inside.
        let longest = body
            .split(|character| character != '`')
            .map(str::len)
            .max()
            .unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        let _ = write!(out, "\n{fence}diff\n{body}{fence}\n");
    }
    out
}
