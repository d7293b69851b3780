//! Ctrl-C and SIGTERM while statectl holds a state's lock: the write in progress ends or stops at a
//! safe point, the lock is released (a local lock's info file removed, a remote lock released, which
//! would otherwise stay until someone ran `terraform force-unlock`), no temporary file is left, and
//! statectl exits 130 for SIGINT or 143 for SIGTERM, as a shell reports a process those signals
//! ended. The store does the cleaning (`store::interrupt`); this module hears the signal and says
//! what happened. A second signal while the write in progress ends stops at once.
//!
//! While `statectl lock -- COMMAND` runs its command, an interrupt does not end statectl: the lock
//! stays until the command exits (as `flock(1)` keeps its lock while the command holds the
//! descriptor), so the command never runs unlocked.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cli::error::CliError;
use crate::cli::exit::ExitStatus;
use crate::cli::printer::{ColorChoice, Printer};
use crate::state::store::interrupt::interrupt;

/// Set once `statectl lock -- COMMAND` starts its command: from then on the main thread owns the
/// end of the run (it waits for the command, releases the lock and exits), so the handler only
/// says it heard the interrupt. Never unset: a signal that arrives just after the command ended
/// must not end the process in the middle of the main thread's release.
static COMMAND_OWNS_THE_END: AtomicBool = AtomicBool::new(false);

/// Hands the end of the run to the command about to start (see [`COMMAND_OWNS_THE_END`]).
pub(crate) fn defer_to_command() {
    COMMAND_OWNS_THE_END.store(true, Ordering::SeqCst);
}

/// Installs the handler, once, before a lock is taken; from then on an interrupt ends the write
/// safely (see the module's comment) and the process; once [`defer_to_command`] was called, it
/// leaves that to the main thread, which waits for the command (a Ctrl-C on a terminal, or a CI
/// job's cancel, reaches the command too).
pub(crate) fn end_writes_safely_on_interrupt() {
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
                let (Ok(mut interrupt_signal), Ok(mut terminate)) = (
                    signal(SignalKind::interrupt()),
                    signal(SignalKind::terminate()),
                ) else {
                    let _ = ready.send(());
                    return;
                };
                let _ = ready.send(());
                let mut told = false;
                let (code, name) = loop {
                    let heard = tokio::select! {
                        _ = interrupt_signal.recv() => (ExitStatus::Interrupted, "SIGINT"),
                        _ = terminate.recv() => (ExitStatus::Terminated, "SIGTERM"),
                    };
                    if !COMMAND_OWNS_THE_END.load(Ordering::SeqCst) {
                        break heard;
                    }
                    if !told {
                        told = true;
                        let mut printer = Printer::new(ColorChoice::Never, false);
                        printer
                            .note("statectl: interrupted; the lock stays until the command exits");
                        let _ = printer.flush();
                    }
                };
                // The step in progress (a commit, a lock's release) ends first; a second signal
                // meanwhile does not wait for it.
                let cleaned = tokio::task::spawn_blocking(interrupt);
                tokio::select! {
                    done = cleaned => {
                        let mut printer = Printer::new(ColorChoice::Never, false);
                        if let Ok(done) = done {
                            for error in done.errors {
                                printer.error(&CliError::from(error));
                            }
                            printer.error(&CliError::new(if done.replaced {
                                format!("interrupted ({name}) after the new state was written")
                            } else {
                                format!("interrupted ({name}); the state was not changed")
                            }));
                        }
                        let _ = printer.flush();
                    }
                    _ = interrupt_signal.recv() => {}
                    _ = terminate.recv() => {}
                }
                std::process::exit(code.code());
            });
        });
        // The lock is taken only once the handler is in place.
        let _ = installed.recv();
    });
}
