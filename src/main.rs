//! The `statectl` binary: run the command line, exit with its code.

fn main() {
    // On a thread of its own: a value may nest `json::MAX_DEPTH` levels deep, and whatever walks
    // it (show, diff, masking, serializing) recurses once per level, past a main thread's 8 MB.
    let run = std::thread::Builder::new()
        .name("statectl".to_owned())
        .stack_size(statectl::cli::STACK_BYTES)
        .spawn(statectl::cli::run);
    let code = match run {
        // A panic has printed its message already; 101 is what Rust exits with after one.
        Ok(thread) => thread.join().unwrap_or(101),
        Err(_) => statectl::cli::run(),
    };
    std::process::exit(code);
}
