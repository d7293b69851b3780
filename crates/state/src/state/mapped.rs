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
//! - A command that reads little of the text after its parse may have the parse give back the
//!   pages it has passed ([`GiveBack`]): the mapping stays, its page table entries go, and a page
//!   read again is mapped again from the page cache with the same bytes, since nothing was ever
//!   written through the mapping.

use std::fs::File;
use std::io;
use std::sync::Once;

use memmap2::{Mmap, MmapOptions, UncheckedAdvice};

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

/// Gives back to the kernel the pages of a read-only mapping that a reader has passed, so that a
/// command that reads a large state once holds its model and not the file: the pages stay in the
/// page cache (as `cat` leaves them), out of the process's memory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GiveBack<'a> {
    map: &'a Mmap,
}

/// Pages are given back in whole granules of this many bytes: a multiple of every page size Linux
/// uses (4, 16 and 64 KiB), so no page only partly passed is given back. Not the 2 MB of the large
/// folios a freshly read file sits in: the kernel maps such a folio whole (one page table entry)
/// at a touch, and given back whole it came back whole at the next stray read behind the reader
/// (the 252 MB state's `list` held 244 MB where 64 KB granules hold 52 MB); given back in part,
/// it is mapped again a few pages at a time.
const GRANULE: usize = 64 << 10;

/// Below this many bytes a state's pages are not given back: they are few, they go when the state
/// is dropped, and giving them back cost a call and a second mapping for each of the thousands of
/// small states a folder's scan reads.
const GIVE_BACK_FROM: usize = 8 << 20;

impl<'a> GiveBack<'a> {
    /// For the mapping `map` of a state of `length` bytes, made by [`map_read_only`] (private,
    /// read-only, never written); `None` for a small state.
    pub(crate) fn of(map: &'a Mmap, length: usize) -> Option<GiveBack<'a>> {
        (length >= GIVE_BACK_FROM).then_some(GiveBack { map })
    }

    /// Gives back the granules from the one `from` is in up to the last one `to` ends (offsets
    /// into the mapping; past its end, nothing), and says where what it gave back ends: `from`
    /// when it gave back nothing, so that a reader that goes on gives back the rest of a granule
    /// once it has passed all of it. The first granule may hold bytes before `from` that another
    /// reader is still reading: it maps them again, and gives them back when it is done. A
    /// failure is ignored: the pages then stay, as they would without this.
    pub(crate) fn pages(self, from: usize, to: usize) -> usize {
        let start = from / GRANULE * GRANULE;
        let end = to.min(self.map.len()) / GRANULE * GRANULE;
        if start >= end {
            return from;
        }
        self.advise_gone(start, end);
        end
    }

    /// Gives back `from..to`, rounded out to whole granules: for a reader done with a part whose
    /// first and last granules it shares with the readers of the parts beside it (a page they
    /// read again is mapped again).
    pub(crate) fn pages_around(self, from: usize, to: usize) {
        let start = from / GRANULE * GRANULE;
        let end = to
            .min(self.map.len())
            .next_multiple_of(GRANULE)
            .min(self.map.len());
        if start < end {
            self.advise_gone(start, end);
        }
    }

    #[allow(
        unsafe_code,
        reason = "MADV_DONTNEED is an unchecked advice; see the module's documentation"
    )]
    fn advise_gone(self, start: usize, end: usize) {
        // SAFETY: MADV_DONTNEED drops the page table entries of the range; on a private file mapping
        // it also drops the private copies of pages written through it, which is how it could change
        // what a reference sees. This mapping is read-only (`map_read_only`) and never written, so
        // it has no private copies: each page read again is the file's page from the page cache,
        // the same bytes (a change to the file by another process is the module's one caveat, as
        // for any page of the mapping not read yet).
        let _ = unsafe {
            self.map
                .unchecked_advise_range(UncheckedAdvice::DontNeed, start, end - start)
        };
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Seek, Write};

    use super::*;
    use crate::state::bytes::{Bytes, resident_bytes};

    /// Set for the child process of the bus-error test: it maps a file, cuts it short through
    /// another handle and touches the lost page.
    const CHILD: &str = "STATECTL_TEST_MAPPED_STATE_CUT_SHORT";

    #[test]
    fn a_state_cut_short_while_mapped_ends_the_process_with_one_line_and_exit_2() {
        if let Some(path) = std::env::var_os(CHILD) {
            let file = File::open(&path).unwrap();
            let map = map_read_only(&file, 1 << 20).unwrap();
            cut_short(&path);
            // Past the new end of the file: the kernel has no page to give.
            let touched = std::hint::black_box(map[(1 << 20) - 1]);
            panic!("read {touched} past the end of a truncated file without a fault");
        }
        ends_with_the_bus_error_line(
            "a_state_cut_short_while_mapped_ends_the_process_with_one_line_and_exit_2",
            CHILD,
            &vec![b' '; 1 << 20],
        );
    }

    /// Cuts the file at `path` to nothing through a handle of its own, as Terraform's local
    /// backend starts its in-place rewrite.
    fn cut_short(path: &std::ffi::OsStr) {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .unwrap()
            .set_len(0)
            .unwrap();
    }

    /// Runs the test `name` again in a child process, `child` set to a file holding `content`
    /// (which the child cuts short), and checks the child ended with the bus-error line and exit 2.
    fn ends_with_the_bus_error_line(name: &str, child: &str, content: &[u8]) {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("terraform.tfstate");
        std::fs::write(&path, content).unwrap();
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                &format!("state::mapped::tests::{name}"),
                "--nocapture",
                "--test-threads=1",
            ])
            .env(child, &path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(std::str::from_utf8(BUS_ERROR_MESSAGE).unwrap()),
            "{stderr}"
        );
    }

    /// `content` in a new unnamed file, mapped as `map_all` maps a state file for a reader.
    fn mapped_state(content: &[u8]) -> crate::state::legacy::StateBytes {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(content).unwrap();
        let bytes = crate::state::bytes::map_all(&file).unwrap();
        assert!(
            matches!(bytes, Bytes::Shared { .. }),
            "a mapping of the file"
        );
        crate::state::legacy::StateBytes::new(bytes)
    }

    /// A state of about `megabytes` MB as Terraform lays it out: resources of one instance each, whose
    /// attributes are mostly one long string, some with escapes, private data and dependencies.
    fn large_state(megabytes: usize) -> String {
        use std::fmt::Write as _;
        let filler = "x".repeat(8_000);
        let mut text = String::from(
            "{\n  \"version\": 4,\n  \"terraform_version\": \"1.15.5\",\n  \"serial\": 3,\n  \"lineage\": \"l\",\n  \"outputs\": {},\n  \"resources\": [\n",
        );
        let count = megabytes * 1_000_000 / 8_400;
        for index in 0..count {
            let _ = write!(
                text,
                "    {{\n      \"mode\": \"managed\",\n      \"type\": \"null_resource\",\n      \"name\": \"r{index}\",\n      \"provider\": \"provider[\\\"registry.terraform.io/hashicorp/null\\\"]\",\n      \"instances\": [\n        {{\n          \"index_key\": \"k\\u00e9{index}\",\n          \"schema_version\": 0,\n          \"attributes\": {{\"id\": \"{index}\", \"filler\": \"{filler}\"}},\n          \"private\": \"cHJpdmF0ZQ==\",\n          \"dependencies\": [\"null_resource.r{}\"]\n        }}\n      ]\n    }}{}\n",
                index.saturating_sub(1),
                if index + 1 == count { "" } else { "," }
            );
        }
        text.push_str("  ],\n  \"check_results\": null\n}\n");
        text
    }

    /// Set for the child process of the test below: it reads a mapped state once, cuts the file
    /// short through another handle and reads a page the parse gave back.
    const GIVEN_BACK_CHILD: &str = "STATECTL_TEST_GIVEN_BACK_STATE_CUT_SHORT";

    #[cfg(target_os = "linux")]
    #[test]
    fn a_page_given_back_of_a_state_cut_short_ends_the_process_with_one_line_and_exit_2() {
        use crate::state::bytes::map_all;
        use crate::state::legacy::StateBytes;

        if let Some(path) = std::env::var_os(GIVEN_BACK_CHILD) {
            let file = File::open(&path).unwrap();
            let bytes = StateBytes::new(map_all(&file).unwrap());
            let state = crate::parts::forced(2, || bytes.parse_reading_once().unwrap());
            let middle = state.resources[state.resources.len() / 2].span;
            cut_short(&path);
            // A page the parse gave back, read again: the kernel has none to give.
            let bytes = &state.source.as_bytes()[middle.start..middle.end];
            let read: usize = bytes.iter().map(|&byte| usize::from(byte)).sum();
            panic!(
                "read {} bytes (sum {read}) of a truncated file without a fault",
                std::hint::black_box(bytes.len())
            );
        }
        ends_with_the_bus_error_line(
            "a_page_given_back_of_a_state_cut_short_ends_the_process_with_one_line_and_exit_2",
            GIVEN_BACK_CHILD,
            large_state(12).as_bytes(),
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_state_read_once_gives_back_the_pages_it_passed_and_reads_the_same() {
        use crate::state::legacy::StateBytes;

        let text = large_state(24);
        let resident_of = |bytes: &StateBytes| resident_bytes(bytes).unwrap();
        let bytes = mapped_state(text.as_bytes());
        // Two threads, each giving back all but its last few megabytes (many threads would each
        // keep their last few, most of a file this size).
        let mut once = crate::parts::forced(2, || bytes.parse_reading_once().unwrap());
        let resident = resident_of(&bytes);
        assert!(
            resident < text.len() / 2,
            "{resident} bytes of {} still mapped",
            text.len()
        );
        // Everything read from the pages given back is what reading the text gives.
        let plain = crate::state::parse(text.as_bytes()).unwrap();
        assert_eq!(once.resources.len(), plain.resources.len());
        // The same state, but for what it keeps to give back pages.
        assert!(once.give_back.take().is_some() && plain.give_back.is_none());
        assert_eq!(format!("{once:?}"), format!("{plain:?}"));
        let instance = &once.resources[7].instances[0];
        assert_eq!(
            instance.private(once.source).as_deref(),
            Some("cHJpdmF0ZQ==")
        );
        assert_eq!(instance.dependencies(once.source), ["null_resource.r6"]);
        assert!(
            instance
                .attributes_json(once.source)
                .unwrap()
                .contains("\"id\": \"7\"")
        );
        // Reading the whole text again maps it all again.
        assert_eq!(once.source, text);
        assert!(resident_of(&bytes) > text.len() / 2);
        // A byte that is not UTF-8 far into the file: the error of reading it whole.
        let mut broken = text.into_bytes();
        let at = broken.len() * 3 / 4;
        broken[at] = 0xff;
        let bytes = mapped_state(&broken);
        let once = crate::parts::forced(2, || bytes.parse_reading_once().unwrap_err());
        let plain = crate::state::parse(&broken).unwrap_err();
        assert_eq!(once.to_string(), plain.to_string());
        assert!(plain.to_string().contains("UTF-8"), "{plain}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_noted_state_read_once_answers_its_noted_values_without_mapping_the_text_again() {
        use std::sync::Arc;

        use crate::json::keys::MemberNames;
        use crate::state::attr_path::Attributes;
        use crate::state::model::State;
        use crate::state::notes::Noting;

        let text = large_state(24);
        let bytes = mapped_state(text.as_bytes());
        let noting = Noting {
            members: Arc::new(MemberNames::new(["id", "filler"])),
            copies: true,
            lines: true,
        };
        let once = crate::parts::forced(2, || bytes.parse_noting_reading_once(&noting).unwrap());
        let plain = crate::state::parse::parse_noting(text.as_bytes(), &noting).unwrap();
        assert_eq!(once.resources.len(), plain.resources.len());
        let ids = |state: &State<'_>| -> Vec<String> {
            state
                .instances()
                .map(|(_, instance)| {
                    let attributes = Attributes::of_instance_in(state, instance, Vec::new());
                    attributes.unwrap().get("id").unwrap().to_owned()
                })
                .collect()
        };
        // Every instance's short noted value, read from the notes' copies: the pages stay given back.
        let read = ids(&once);
        assert_eq!(read, ids(&plain));
        assert_eq!(read[7], "\"7\"");
        let resident = resident_bytes(&bytes).unwrap();
        assert!(
            resident < text.len() / 2,
            "{resident} bytes of {} mapped after reading the ids",
            text.len()
        );
        // A noted value too long to copy is read from the text, which maps its page again.
        let instance = &once.resources[9].instances[0];
        let attributes = Attributes::of_instance_in(&once, instance, Vec::new()).unwrap();
        assert_eq!(attributes.get("filler").map(str::len), Some(8_002));
    }

    #[test]
    fn only_a_mapping_of_a_large_file_gives_pages_back() {
        use crate::state::bytes::map_all;
        let mapped = |length: usize| {
            let file = tempfile::tempfile().unwrap();
            file.set_len(length as u64).unwrap();
            map_all(&file).unwrap()
        };
        assert!(matches!(mapped(1 << 20), Bytes::Shared { .. }));
        assert!(
            mapped(1 << 20).give_back().is_none(),
            "a small state's pages go with it"
        );
        assert!(mapped(GIVE_BACK_FROM).give_back().is_some());
        // statectl's own memory given back would read as zeros.
        assert!(
            Bytes::copy_of(&vec![b' '; GIVE_BACK_FROM])
                .give_back()
                .is_none()
        );
        assert!(
            Bytes::Heap(vec![b' '; GIVE_BACK_FROM])
                .give_back()
                .is_none()
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
