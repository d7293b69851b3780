//! The read path of `statectl list` alone, for measuring it against `cat`: read a state file as a
//! reading command reads it (mapped when large), parse it, print its instance count.
//!
//! ```sh
//! CARGO_BUILD_BUILD_DIR=/work/target-rel cargo build --release -p statectl-state --example read_state
//! /usr/bin/time -f '%e s %M KB' target/release/examples/read_state STATE
//! ```

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark's own program, not statectl: its count and errors go straight out"
)]

use std::path::Path;
use std::process::ExitCode;

use statectl_state::state::legacy::StateBytes;
use statectl_state::state::source::Source;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: read_state STATE");
        return ExitCode::from(2);
    };
    let source = Source::from_arg(Some(Path::new(&path)));
    let bytes = match source.read_only() {
        Ok(bytes) => StateBytes::new(bytes),
        Err(error) => {
            eprintln!("error: {source}: {error}");
            return ExitCode::from(2);
        }
    };
    match bytes.parse() {
        Ok(state) => {
            println!("{}", state.order.len());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {source}: {error}");
            ExitCode::from(2)
        }
    }
}
