//! `statectl generate`: writes the shell completions, man pages and report schemas that are checked
//! in under `completions/`, `man/` and `schema/`. `--check` compares instead of writing, for the test
//! that keeps them fresh.

use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};
use clap_complete::{Generator, Shell};

use crate::cli::error::CliError;
use crate::cli::exit::ExitStatus;
use crate::cli::{Cli, Printer};

/// Write shell completions, man pages and the JSON reports' schemas (for packaging; checked in under
/// completions/, man/ and schema/).
#[derive(Debug, Parser)]
#[command(name = "statectl generate", bin_name = "statectl generate")]
pub(super) struct Args {
    /// The project root: files go to `ROOT/completions` and `ROOT/man`.
    #[arg(long, value_name = "ROOT", default_value = ".")]
    pub root: PathBuf,

    /// Compare with the files on disk instead of writing; exit 1 when any is stale.
    #[arg(long)]
    pub check: bool,
}

/// Every generated file: its path below the root and its content.
pub(super) fn generated_files() -> Result<Vec<(PathBuf, Vec<u8>)>, CliError> {
    let mut files = Vec::new();
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::PowerShell,
        Shell::Elvish,
    ] {
        let mut command = Cli::command();
        let mut content = Vec::new();
        clap_complete::generate(shell, &mut command, "statectl", &mut content);
        let name = shell.file_name("statectl");
        files.push((Path::new("completions").join(name), content));
    }
    let mut command = Cli::command();
    command.build();
    let mut pages = vec![(String::new(), command.clone())];
    // `help` is clap's own, added by `build`: `--help` covers it.
    for subcommand in command
        .get_subcommands()
        .filter(|subcommand| subcommand.get_name() != "help")
    {
        pages.push((subcommand.get_name().to_owned(), subcommand.clone()));
    }
    for (subcommand, mut page) in pages {
        let name = if subcommand.is_empty() {
            "statectl".to_owned()
        } else {
            format!("statectl-{subcommand}")
        };
        let usage = page.render_usage().to_string();
        let page = page.name(name.clone());
        let versioned = page.get_version().is_some();
        let man = clap_mangen::Man::new(page);
        let mut content = Vec::new();
        let mut render = || -> std::io::Result<()> {
            man.render_title(&mut content)?;
            man.render_name_section(&mut content)?;
            let mut roff = clap_mangen::roff::Roff::new();
            crate::cli::man::synopsis(&mut roff, &usage);
            roff.to_writer(&mut content)?;
            man.render_description_section(&mut content)?;
            man.render_options_section(&mut content)?;
            if subcommand.is_empty() {
                man.render_subcommands_section(&mut content)?;
            }
            let mut roff = clap_mangen::roff::Roff::new();
            crate::cli::man::sections(&mut roff, &subcommand);
            roff.to_writer(&mut content)?;
            if versioned {
                man.render_version_section(&mut content)?;
            }
            Ok(())
        };
        render().map_err(|error| {
            CliError::new(format!("cannot render the man page {name}: {error}"))
        })?;
        files.push((Path::new("man").join(format!("{name}.1")), content));
    }
    for (name, content) in crate::cli::findings::document::schemas() {
        files.push((Path::new("schema").join(name), content.into_bytes()));
    }
    Ok(files)
}

/// `statectl generate ...`, parsed apart from the other commands; returns the exit code.
pub(super) fn main() -> i32 {
    let args = match Args::try_parse_from(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() {
                ExitStatus::Error.code()
            } else {
                ExitStatus::Success.code()
            };
        }
    };
    let mut printer = Printer::new(crate::cli::ColorChoice::Never, false);
    let outcome = run(&args, &mut printer).and_then(|status| printer.flush().map(|()| status));
    match outcome {
        Ok(status) => status.code(),
        Err(error) => {
            printer.error(&error);
            error.code.code()
        }
    }
}

fn run(args: &Args, printer: &mut Printer) -> Result<ExitStatus, CliError> {
    let mut stale = Vec::new();
    for (relative, content) in generated_files()? {
        let path = args.root.join(&relative);
        if args.check {
            if std::fs::read(&path).ok().as_deref() != Some(content.as_slice()) {
                stale.push(relative.display().to_string());
            }
            continue;
        }
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(|error| {
                CliError::new(format!("cannot create {}: {error}", folder.display()))
            })?;
        }
        std::fs::write(&path, content)
            .map_err(|error| CliError::new(format!("cannot write {}: {error}", path.display())))?;
        printer.line(&relative.display().to_string())?;
    }
    if stale.is_empty() {
        return Ok(ExitStatus::Success);
    }
    for file in &stale {
        printer.line(file)?;
    }
    Err(CliError {
        code: ExitStatus::Findings,
        ..CliError::new(format!("{} generated files are stale", stale.len()))
    }
    .with_hint("run `cargo run -- generate` and commit the result"))
}
