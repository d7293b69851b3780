//! `statectl generate`: writes the shell completions and man pages that are checked in under
//! `completions/` and `man/`. `--check` compares instead of writing, for the test that keeps them fresh.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::{Generator, Shell};

use crate::cli::error::CliError;
use crate::cli::{Cli, Printer, exit};

#[derive(Debug, clap::Args)]
pub struct Args {
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
    let command = Cli::command();
    let mut pages = vec![("statectl".to_owned(), command.clone())];
    for subcommand in command
        .get_subcommands()
        .filter(|subcommand| !subcommand.is_hide_set())
    {
        let name = format!("statectl-{}", subcommand.get_name());
        pages.push((name.clone(), subcommand.clone().name(name)));
    }
    for (name, page) in pages {
        let mut content = Vec::new();
        clap_mangen::Man::new(page)
            .render(&mut content)
            .map_err(|error| {
                CliError::new(format!("cannot render the man page {name}: {error}"))
            })?;
        files.push((Path::new("man").join(format!("{name}.1")), content));
    }
    Ok(files)
}

pub(super) fn run(args: &Args, printer: &mut Printer) -> Result<i32, CliError> {
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
        return Ok(exit::SUCCESS);
    }
    for file in &stale {
        printer.line(file)?;
    }
    Err(CliError {
        code: exit::FINDINGS,
        ..CliError::new(format!("{} generated files are stale", stale.len()))
    }
    .with_hint("run `cargo run -- generate` and commit the result"))
}
