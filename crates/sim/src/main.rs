//! The `statectl-sim` binary, for demos: starts the simulator the arguments describe (see the
//! library and SCENARIO.md), prints one line on stdout, `listening on http://127.0.0.1:PORT`, so
//! that a script can start it on port 0 and read where it went, then serves until interrupted.
//! With `-v` it logs one line a request on stderr. A bad scenario is one `error:` line and exit 2.

use std::io::Write;
use std::process::ExitCode;

use statectl_sim::{Server, StartError};

#[expect(
    clippy::print_stderr,
    reason = "the binary's one error line; there is no printer outside the library's CLI"
)]
fn main() -> ExitCode {
    let server = match Server::start(std::env::args_os().skip(1)) {
        Ok(server) => server,
        Err(StartError::Usage(error)) => error.exit(),
        Err(StartError::Setup(error)) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    if let Err(error) = announce(&server) {
        eprintln!("error: cannot write to stdout: {error}");
        return ExitCode::from(2);
    }
    let waited = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map(|runtime| runtime.block_on(tokio::signal::ctrl_c()));
    drop(server);
    match waited {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(error)) | Err(error) => {
            eprintln!("error: cannot wait for Ctrl-C: {error}");
            ExitCode::from(2)
        }
    }
}

#[expect(
    clippy::print_stdout,
    reason = "the one line a script reads to find the port; flushed, since stdout is a pipe there"
)]
fn announce(server: &Server) -> std::io::Result<()> {
    println!("listening on {}", server.url());
    std::io::stdout().flush()
}
