//! The `statectl` binary: run the command line, exit with its code.

fn main() {
    std::process::exit(statectl::cli::run());
}
