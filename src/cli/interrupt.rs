//! Ctrl-C and SIGTERM while statectl holds a remote state's lock: the lock is released before the
//! process ends. A local lock goes with the process; a lock object in S3 or an HTTP backend's lock
//! would stay until someone ran `terraform force-unlock`.

use std::sync::Once;

use crate::cli::error::CliError;
use crate::cli::printer::Printer;
use crate::state::store::remote::release_all_held;

/// Installs the handler, once; from then on an interrupt releases every remote lock held and exits
/// 130, as a shell reports a process ended by Ctrl-C.
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
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
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
