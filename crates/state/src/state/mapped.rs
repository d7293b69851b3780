//! One of the three places statectl uses `unsafe` (the others: `json/utf8.rs`, `json/wide.rs`): a
//! read-only mapping of a state file for the commands that only read (list, show, query, summary,
//! scan, audit, diff), so the bytes are the page cache's own pages: no copy, no zeroed buffer, no
//! memory beyond the file's.
//!
//! Why it is sound enough, and what guards the rest:
//! - The mapping is private and read-only: nothing statectl does can write to the file through it.
//! - Another process may still change the file while it is mapped. Terraform's local backend
//!   rewrites a state in place (truncate, then write); a statectl write never does (it renames a new
//!   file into place, and the old inode stays as it was but for a short stale marker at its start).
//!   A read that overlaps an in-place rewrite reads a torn state either way, mapped or copied; the
//!   mapped read also faults (SIGBUS) when it touches a page past a truncation. [`guard_bus_errors`]
//!   turns that fault into statectl's one line and exit 2, instead of a crash.
//! - Writes never map: the store reads a private copy under the lock, because it compares that copy
//!   with the file again before committing and must not see a stale marker of its own making.

use std::fs::File;
use std::io;
use std::sync::Once;

use memmap2::{Mmap, MmapOptions};

/// Maps `length` bytes of `file` read-only. The caller has checked that `file` is a regular file
/// and that `length` is its size.
#[allow(
    unsafe_code,
    reason = "a file mapping is unsafe by nature; see the module's documentation"
)]
pub(crate) fn map_read_only(file: &File, length: usize) -> io::Result<Mmap> {
    guard_bus_errors();
    // SAFETY: the mapping is private and read-only, so statectl never changes the file through it.
    // A change by another process is possible and is what the module's documentation weighs: its
    // one fault, SIGBUS after a truncation, ends the process with a clear message (below).
    let map = unsafe { MmapOptions::new().len(length).map_copy_read_only(file)? };
    #[cfg(target_os = "linux")]
    {
        // Only advice: the whole file is read front to back once.
        let _ = map.advise(memmap2::Advice::Sequential);
        let _ = map.advise(memmap2::Advice::WillNeed);
    }
    Ok(map)
}

/// What a bus error prints: the only way one happens in statectl is a mapped state cut short.
const BUS_ERROR_MESSAGE: &[u8] = b"error: the state file was cut short while statectl read it \
(another process rewrote it in place, as Terraform's local backend does); nothing was written\n\
hint: run the command again once the other process is done\n";

/// Installs, once per process, a SIGBUS handler that prints [`BUS_ERROR_MESSAGE`] and exits 2.
/// Returning from the handler would fault again on the same access, so it ends the process; it
/// does only what a signal handler may (`write` and `_exit`).
#[allow(
    unsafe_code,
    reason = "a signal handler is installed through libc's sigaction"
)]
fn guard_bus_errors() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        extern "C" fn on_bus_error(_: libc::c_int) {
            // SAFETY: `write` and `_exit` are async-signal-safe; the message is a static.
            unsafe {
                let _ = libc::write(
                    libc::STDERR_FILENO,
                    BUS_ERROR_MESSAGE.as_ptr().cast(),
                    BUS_ERROR_MESSAGE.len(),
                );
                libc::_exit(2);
            }
        }
        // SAFETY: a zeroed `sigaction` is a valid "no flags, empty mask" value to fill in; the
        // handler is an `extern "C"` function of the right signature.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_bus_error as *const () as usize;
            libc::sigemptyset(&raw mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &raw const action, std::ptr::null_mut());
        }
    });
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Seek, Write};

    use super::*;

    /// Set for the child process of the bus-error test: it maps a file, cuts it short through
    /// another handle and touches the lost page.
    const CHILD: &str = "STATECTL_TEST_MAPPED_STATE_CUT_SHORT";

    #[test]
    fn a_state_cut_short_while_mapped_ends_the_process_with_one_line_and_exit_2() {
        if let Some(path) = std::env::var_os(CHILD) {
            let file = File::open(&path).unwrap();
            let map = map_read_only(&file, 1 << 20).unwrap();
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(0)
                .unwrap();
            // Past the new end of the file: the kernel has no page to give.
            let touched = std::hint::black_box(map[(1 << 20) - 1]);
            panic!("read {touched} past the end of a truncated file without a fault");
        }
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("terraform.tfstate");
        std::fs::write(&path, vec![b' '; 1 << 20]).unwrap();
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "state::mapped::tests::a_state_cut_short_while_mapped_ends_the_process_with_one_line_and_exit_2",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, &path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(std::str::from_utf8(BUS_ERROR_MESSAGE).unwrap()),
            "{stderr}"
        );
    }

    #[test]
    fn a_mapping_holds_the_file_and_never_writes_to_it() {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"{\"version\": 4}").unwrap();
        let map = map_read_only(&file, 14).unwrap();
        assert_eq!(&map[..], b"{\"version\": 4}");
        // Read-only: turning it writable gives a private copy, the file keeps its bytes.
        let mut writable = map.make_mut().unwrap();
        writable[0] = b'[';
        let mut text = String::new();
        file.rewind().unwrap();
        file.read_to_string(&mut text).unwrap();
        assert_eq!(text, "{\"version\": 4}");
    }
}
