//! Ctrl-C and SIGTERM while statectl holds a remote state's lock: the lock is released before the
//! process ends. A local lock goes with the process; a lock object in S3 or an HTTP backend's lock
//! would stay until someone ran `terraform force-unlock`. While `statectl lock -- COMMAND` runs its
//! command, an interrupt does not end statectl: the lock stays until the command exits (as `flock(1)`
//! keeps its lock while the command holds the descriptor), so the command never runs unlocked.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cli::error::CliError;
use crate::cli::printer::Printer;
use crate::state::store::remote::release_all_held;

/// Set once `statectl lock -- COMMAND` starts its command: from then on the main thread owns the
/// end of the run (it waits for the command, releases the lock and exits), so the handler only
/// says it heard the interrupt. Never unset: a signal that arrives just after the command ended
/// must not end the process in the middle of the main thread's release.
static COMMAND_OWNS_THE_END: AtomicBool = AtomicBool::new(false);

/// Hands the end of the run to the command about to start (see [`COMMAND_OWNS_THE_END`]).
pub(crate) fn defer_to_command() {
    COMMAND_OWNS_THE_END.store(true, Ordering::SeqCst);
}

/// Installs the handler, once; from then on an interrupt releases every remote lock held and exits
/// 130, as a shell reports a process ended by Ctrl-C; once [`defer_to_command`] was called, it
/// leaves that to the main thread, which waits for the command (a Ctrl-C on a terminal, or a CI
/// job's cancel, reaches the command too).
pub(crate) fn release_remote_locks_on_interrupt() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let (ready, installed) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                let _ = ready.send(());
                return;
            };
            runtime.block_on(async move {
                use tokio::signal::unix::{SignalKind, signal};
                let (Ok(mut interrupt), Ok(mut terminate)) = (
                    signal(SignalKind::interrupt()),
                    signal(SignalKind::terminate()),
                ) else {
                    let _ = ready.send(());
                    return;
                };
                let _ = ready.send(());
                let mut told = false;
                loop {
                    tokio::select! {
                        _ = interrupt.recv() => {}
                        _ = terminate.recv() => {}
                    }
                    if !COMMAND_OWNS_THE_END.load(Ordering::SeqCst) {
                        break;
                    }
                    if !told {
                        told = true;
                        let mut printer = Printer::new(crate::cli::printer::ColorChoice::Never);
                        printer.to_stderr(
                            "statectl: interrupted; the lock stays until the command exits\n",
                        );
                        let _ = printer.flush();
                    }
                }
            });
            let mut printer = Printer::new(crate::cli::printer::ColorChoice::Never);
            for error in release_all_held() {
                printer.error(&CliError::from(error));
            }
            std::process::exit(130);
        });
        // The lock is taken only once the handler is in place.
        let _ = installed.recv();
    });
}
