//! The printer owns stdout and stderr: stdout carries only data, stderr carries what people read, on
//! channels of its own: errors, warnings, notes (where a state was found, what was written), hints
//! beside findings and reports moved off stdout because stdout carries a state. `--quiet` silences
//! the notes and the hints beside findings (and the progress bar, `progress`); warnings and errors
//! always print, because a rule that could not be applied is said, never skipped silently. A closed
//! pipe (`statectl list | head`) ends output quietly instead of failing.
//!
//! Every text goes through the secret masks on its way out (`statectl_net::secrets`): data on
//! stdout is masked against the run's registered secrets, and what stderr says to people against
//! those and the credential patterns too. Only a state or an envelope passed on whole
//! ([`Printer::out_bytes`]) goes out as it is: it is the state's bytes, which `terraform state push`
//! must get exactly (a refresh never puts a registered secret into them).

use std::io::{self, BufWriter, IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use statectl_net::secrets::{mask, mask_message};

use crate::cli::error::{CliError, sanitize};
use crate::cli::escape::invisible_escaped;
use crate::cli::style::Style;

/// When to use color, from `--color` and `NO_COLOR`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug)]
pub struct Printer {
    stdout: BufWriter<io::Stdout>,
    color_stdout: bool,
    color_stderr: bool,
    /// `--quiet`: no notes, no hints beside findings, no progress.
    quiet: bool,
    pipe_closed: bool,
}

impl Printer {
    pub fn new(color: ColorChoice, quiet: bool) -> Printer {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        let (color_stdout, color_stderr) = match color {
            ColorChoice::Always => (true, true),
            ColorChoice::Never => (false, false),
            ColorChoice::Auto => (
                !no_color && io::stdout().is_terminal(),
                !no_color && io::stderr().is_terminal(),
            ),
        };
        Printer {
            stdout: BufWriter::with_capacity(1 << 16, io::stdout()),
            color_stdout,
            color_stderr,
            quiet,
            pipe_closed: false,
        }
    }

    /// Writes data to stdout, masked against the run's secrets, then the characters a terminal
    /// would act on invisibly (C1 controls, bidirectional overrides) escaped as `\uXXXX` (see
    /// [`invisible_escaped`]). Stops silently once the reader has gone away.
    pub fn out(&mut self, text: &str) -> Result<(), CliError> {
        let masked = mask(text);
        let text = invisible_escaped(&masked);
        self.out_bytes(text.as_bytes())
    }

    /// [`Printer::out`] for data passed on byte for byte, never masked nor escaped (a state for
    /// `terraform state push -`, an encrypted state's envelope).
    pub fn out_bytes(&mut self, bytes: &[u8]) -> Result<(), CliError> {
        if self.pipe_closed {
            return Ok(());
        }
        match self.stdout.write_all(bytes) {
            Err(error) if error.kind() == io::ErrorKind::BrokenPipe => {
                self.pipe_closed = true;
                Ok(())
            }
            other => other.map_err(|error| {
                CliError::new(format!("cannot write to standard output: {error}"))
            }),
        }
    }

    /// Writes one line of data to stdout.
    pub fn line(&mut self, text: &str) -> Result<(), CliError> {
        self.out(text)?;
        self.out("\n")
    }

    /// Writes a JSON document to stdout, indented as every `--format json` prints one, and a newline.
    pub fn json_line(&mut self, document: &serde_json::Value) -> Result<(), CliError> {
        self.line(&serde_json::to_string_pretty(document).expect("JSON values always serialize"))
    }

    pub fn flush(&mut self) -> Result<(), CliError> {
        match self.stdout.flush() {
            Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            other => other.map_err(|error| {
                CliError::new(format!("cannot write to standard output: {error}"))
            }),
        }
    }

    /// Whether stdout wants color (a terminal, or `--color always`).
    pub fn color_stdout(&self) -> bool {
        self.color_stdout
    }

    /// Whether stderr wants color.
    pub fn color_stderr(&self) -> bool {
        self.color_stderr
    }

    /// Whether `--quiet` was given: a caller with something to draw (a progress bar) asks.
    pub fn quiet(&self) -> bool {
        self.quiet
    }

    /// A progress bar of `total` steps on stderr, drawn with `template` (indicatif's), or `None`
    /// when stderr is not a terminal or under `--quiet`. The `-v` log writes above it.
    pub fn progress_bar(&self, total: usize, template: &str) -> Option<ProgressBar> {
        if self.quiet || !io::stderr().is_terminal() {
            return None;
        }
        let bar = ProgressBar::with_draw_target(
            Some(total as u64),
            ProgressDrawTarget::stderr_with_hz(10),
        );
        bar.set_style(
            ProgressStyle::with_template(template)
                .expect("the template is valid")
                .progress_chars("=> "),
        );
        crate::cli::log::set_bar(Some(bar.clone()));
        Some(bar)
    }

    /// Writes a report for people to stderr because stdout carries a state (a refresh's outcomes,
    /// the diff of a write piped on with `-o -`): data displaced, so `--quiet` keeps it.
    pub fn report_on_stderr(&mut self, text: &str) {
        self.stderr_text(text);
    }

    /// Writes a note for people to stderr, one line: where the state was found, what a write did,
    /// how many states a listing found. `--quiet` silences it.
    pub fn note(&mut self, line: &str) {
        if !self.quiet {
            self.stderr_text(&format!("{line}\n"));
        }
    }

    /// Text for stderr, after the data written so far, masked and with invisible characters escaped.
    fn stderr_text(&mut self, text: &str) {
        let _ = self.stdout.flush();
        let masked = mask_message(text);
        let text = invisible_escaped(&masked);
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }

    /// Prints a `warning:` line to stderr.
    pub fn warning(&mut self, message: &str) {
        self.labelled(Style::WarningLabel, "warning", &sanitize(message));
    }

    /// Prints an `error:` line to stderr without ending the command (one of several problems).
    pub fn error_line(&mut self, message: &str) {
        self.labelled(Style::ErrorLabel, "error", &sanitize(message));
    }

    /// `label: message` on stderr, the label in its style where stderr wants color.
    fn labelled(&mut self, style: Style, label: &str, message: &str) {
        let _ = self.stdout.flush();
        let label = self.label(style, label);
        let message = mask_message(message);
        let _ = writeln!(io::stderr().lock(), "{label}: {message}");
    }

    /// `label` in `style` where stderr wants color.
    fn label(&self, style: Style, label: &str) -> String {
        crate::cli::style::paint(style, label, self.color_stderr)
    }

    /// Prints the `hint:` lines beside findings to stderr, for people; `--quiet` silences them (an
    /// error's own hint is part of the error and always prints).
    pub fn hints(&mut self, hints: &[String]) {
        if self.quiet {
            return;
        }
        let _ = self.stdout.flush();
        let label = self.label(Style::HintLabel, "hint");
        let mut stderr = io::stderr().lock();
        // A hint names the finding's address, which may hold anything a state holds.
        for hint in hints {
            let _ = writeln!(stderr, "{label}: {}", sanitize(&mask_message(hint)));
        }
    }

    /// Prints an error, and its hint, to stderr.
    pub fn error(&mut self, error: &CliError) {
        let _ = self.stdout.flush();
        let error_label = self.label(Style::ErrorLabel, "error");
        let hint_label = self.label(Style::HintLabel, "hint");
        let mut stderr = io::stderr().lock();
        // The last line of defence: a file name or argument with control characters in it never
        // reaches the terminal raw, whichever message carries it.
        let _ = writeln!(
            stderr,
            "{error_label}: {}",
            mask_message(&sanitize(&error.message))
        );
        if let Some(hint) = &error.hint {
            let _ = writeln!(stderr, "{hint_label}: {}", mask_message(&sanitize(hint)));
        }
    }
}
