//! The bytes of a state file in memory. Large files go into an anonymous mapping that asks for huge
//! pages: with 4 KB pages, reading a 50 MB state costs some 12,000 page faults, about a third of
//! `statectl list`'s time; with 2 MB pages, a few dozen.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::ops::{Deref, DerefMut};
use std::os::unix::fs::{FileExt, FileTypeExt};
use std::path::Path;

use memmap2::{Mmap, MmapMut, MmapOptions};

/// Below this size, a plain heap buffer is as fast and simpler.
const MAPPED_FROM: usize = 4 << 20;

/// From this size a reading command maps the file instead of reading it into a buffer: the copy
/// into a buffer (the kernel's `_copy_to_iter`) was a sixth of a scan of a folder of states, most of
/// whose bytes are in files of 64 KB to 4 MB. Below it, mapping and unmapping cost more than the
/// copy (mapping every file from 4 KB made that scan 20% slower).
const SHARED_FROM: usize = 64 << 10;

/// The most statectl reads of one state (4 GiB): the largest real states are a few hundred MB, and
/// without a bound a pipe that never ends (`/dev/zero`, `yes`) would fill the memory.
pub const MAX_STATE_BYTES: u64 = 4 << 30;

/// A state's bytes: a heap buffer, an anonymous mapping holding `length` bytes, or the first `length`
/// bytes of a read-only mapping of the file itself (reading commands only: see `mapped`).
#[derive(Debug)]
pub enum Bytes {
    Heap(Vec<u8>),
    Mapped { map: MmapMut, length: usize },
    Shared { map: Mmap, length: usize },
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Heap(bytes) => bytes,
            Bytes::Mapped { map, length } => &map[..*length],
            Bytes::Shared { map, length } => &map[..*length],
        }
    }
}

/// A file's own pages are never written: changing them makes a private copy first.
impl DerefMut for Bytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        if let Bytes::Shared { map, length } = self {
            *self = Bytes::copy_of(&map[..*length]);
        }
        match self {
            Bytes::Heap(bytes) => bytes,
            Bytes::Mapped { map, length } => &mut map[..*length],
            // Replaced by a copy just above.
            Bytes::Shared { .. } => &mut [],
        }
    }
}

impl Default for Bytes {
    fn default() -> Bytes {
        Bytes::Heap(Vec::new())
    }
}

/// A deep copy, in a buffer made as [`Bytes::zeroed`] makes one.
impl Clone for Bytes {
    fn clone(&self) -> Bytes {
        Bytes::copy_of(self)
    }
}

/// Equal when the bytes are, however they are held.
impl PartialEq for Bytes {
    fn eq(&self, other: &Bytes) -> bool {
        **self == **other
    }
}

impl Eq for Bytes {}

impl PartialEq<[u8]> for Bytes {
    fn eq(&self, other: &[u8]) -> bool {
        **self == *other
    }
}

impl PartialEq<&[u8]> for Bytes {
    fn eq(&self, other: &&[u8]) -> bool {
        **self == **other
    }
}

impl Bytes {
    /// What gives back the pages a reader of these bytes has passed: only for a read-only mapping of
    /// the file (`map_all`), whose pages read again are the file's; never for memory of statectl's
    /// own, whose pages given back would read as zeros. Nothing below a few megabytes either (see
    /// `mapped::GIVE_BACK_FROM`).
    pub(crate) fn give_back(&self) -> Option<crate::state::mapped::GiveBack<'_>> {
        match self {
            Bytes::Shared { map, length } => crate::state::mapped::GiveBack::of(map, *length),
            Bytes::Heap(_) | Bytes::Mapped { .. } => None,
        }
    }

    /// `length` zero bytes to fill: for a large buffer, an anonymous mapping that asks for huge
    /// pages, as a read does. A decrypted or sealed 50 MB state made in a fresh heap buffer costs
    /// some 12,000 page faults (about 30 ms) more than one in huge pages.
    pub fn zeroed(length: usize) -> Bytes {
        if length >= MAPPED_FROM
            && let Ok(map) = MmapOptions::new().len(length).map_anon()
        {
            #[cfg(target_os = "linux")]
            let _ = map.advise(memmap2::Advice::HugePage);
            return Bytes::Mapped { map, length };
        }
        // Small, or no mapping to be had: the heap does as well.
        Bytes::Heap(vec![0; length])
    }

    /// A copy of `bytes`, made as [`Bytes::zeroed`] makes its buffer.
    pub fn copy_of(bytes: &[u8]) -> Bytes {
        let mut copy = Bytes::zeroed(bytes.len());
        copy.copy_from_slice(bytes);
        copy
    }

    /// Keeps the first `length` bytes (all of them when there are fewer).
    pub fn truncate(&mut self, length: usize) {
        match self {
            Bytes::Heap(bytes) => bytes.truncate(length),
            Bytes::Mapped { length: kept, .. } | Bytes::Shared { length: kept, .. } => {
                *kept = (*kept).min(length);
            }
        }
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Bytes {
        Bytes::Heap(bytes)
    }
}

/// Reads a whole regular file. The mapping is anonymous (a private copy), so another process rewriting the
/// file meanwhile can never change or invalidate what statectl has read.
pub fn read_file(path: &Path) -> io::Result<Bytes> {
    read_all(&File::open(path)?)
}

/// Reads all of an open file from its first byte, through that handle only. The state store needs
/// this: a POSIX lock is dropped when *any* handle of the file in the process closes, so a file read
/// under the lock must never be opened a second time.
pub fn read_all(file: &File) -> io::Result<Bytes> {
    read_all_of(file, state_size(&file.metadata()?)?, &[])
}

/// [`read_all`], the file's size already read (a folder of small states paid for each look), and
/// its first bytes when they were read already (`prefix`, for a small file: not read twice).
fn read_all_of(file: &File, size: usize, prefix: &[u8]) -> io::Result<Bytes> {
    if size < MAPPED_FROM {
        let mut bytes = Vec::with_capacity(size.max(prefix.len()) + 1);
        bytes.extend_from_slice(prefix);
        read_at_into(file, &mut bytes)?;
        return Ok(Bytes::Heap(bytes));
    }
    // One spare byte tells whether the file grew since its size was read.
    let mut map = MmapOptions::new().len(size + 1).map_anon()?;
    // Only advice: without huge pages the read still works, just with more page faults. Linux alone
    // has transparent huge pages (memmap2 has no such advice elsewhere, so macOS builds without it).
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    let length = fill_at(file, &mut map, size + 1)?;
    if length == map.len() {
        // The file grew while being read: read it again into a buffer that can grow too.
        let mut bytes = Vec::with_capacity(length * 2);
        read_at_into(file, &mut bytes)?;
        return Ok(Bytes::Heap(bytes));
    }
    Ok(Bytes::Mapped { map, length })
}

/// All of a small regular file (below [`SHARED_FROM`], the most a folder of states holds) in one
/// positional read, given its `metadata`: `None` for a larger one, read as [`read_known`] reads it,
/// and for one whose size is 0 (a pseudo-file, as `/proc`'s, says 0 whatever it holds; an empty
/// file costs that path nothing). The read asks for one byte more than the size: when it gets
/// it, the file holds more than its metadata said (it grew, or a file system reports a size it
/// does not hold), and the rest is read to the end as [`read_known`] would. When it gets the size
/// or less, that is the file: one that shrank or grew since has a new size, which the reader's
/// check of the file's stamp after the read (`read_stamps`) reports as a rewrite.
///
/// Why: a folder of 2,070 states paid a read of the first bytes, a read of the rest and one more
/// to find the end for each file, where one read holds all of most of them.
pub fn read_small(file: &File, metadata: &Metadata) -> io::Result<Option<Vec<u8>>> {
    let size = state_size(metadata)?;
    if size == 0 || size >= SHARED_FROM {
        return Ok(None);
    }
    let mut bytes = vec![0; size + 1];
    let length = fill_at(file, &mut bytes, size)?;
    bytes.truncate(length);
    if length > size {
        read_at_into(file, &mut bytes)?;
    }
    Ok(Some(bytes))
}

/// Reads `file` from its first byte into `buffer` with positional reads until at least `until`
/// bytes are in (a read may bring more, up to the buffer's length) or the file ends; how many
/// bytes were read.
fn fill_at(file: &File, buffer: &mut [u8], until: usize) -> io::Result<usize> {
    let mut length = 0;
    while length < until.min(buffer.len()) {
        match file.read_at(&mut buffer[length..], length as u64) {
            Ok(0) => break,
            Ok(read) => length += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(length)
}

/// The size of the file `metadata` describes: a regular file, no larger than a state may be.
fn state_size(metadata: &Metadata) -> io::Result<usize> {
    regular_file(metadata)?;
    if metadata.len() > MAX_STATE_BYTES {
        return Err(too_big(&format!("the file holds {} bytes", metadata.len())));
    }
    Ok(usize::try_from(metadata.len()).unwrap_or(usize::MAX))
}

/// Reads all of an open file for a command that only reads: a large regular file is mapped read-only
/// (its pages are the page cache's: no copy and no memory beyond the file's), a small one read as
/// [`read_all`] reads it. Never for a write: the store needs a private copy (see `mapped`).
pub fn map_all(file: &File) -> io::Result<Bytes> {
    map_all_known(file, &file.metadata()?, &[])
}

/// [`map_all`] or, with `copy`, [`read_all`], given the open file's `metadata` (read once for
/// this and for the stamp of `read_stamps`) and the `prefix` of it already read (kept for a file
/// read into memory, so its first bytes are not read twice; dropped for a mapping).
pub fn read_known(
    file: &File,
    metadata: &Metadata,
    prefix: &[u8],
    copy: bool,
) -> io::Result<Bytes> {
    if copy {
        read_all_of(file, state_size(metadata)?, prefix)
    } else {
        map_all_known(file, metadata, prefix)
    }
}

fn map_all_known(file: &File, metadata: &Metadata, prefix: &[u8]) -> io::Result<Bytes> {
    let size = state_size(metadata)?;
    if size < SHARED_FROM {
        return read_all_of(file, size, prefix);
    }
    let map = crate::state::mapped::map_read_only(file, size)?;
    Ok(Bytes::Shared { map, length: size })
}

/// How many bytes of the mapping that holds `bytes` are in this process's memory (Linux's
/// `/proc/self/smaps`; `None` elsewhere, or when no mapping holds them): for tests of what a
/// reader of a mapped state holds.
#[doc(hidden)]
pub fn resident_bytes(bytes: &[u8]) -> Option<usize> {
    let address = bytes.as_ptr() as usize;
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut inside = false;
    for line in smaps.lines() {
        if let Some((range, _)) = line.split_once(' ')
            && let Some((start, end)) = range.split_once('-')
            && let (Ok(start), Ok(end)) = (
                usize::from_str_radix(start, 16),
                usize::from_str_radix(end, 16),
            )
        {
            inside = (start..end).contains(&address);
        } else if inside && let Some(rss) = line.strip_prefix("Rss:") {
            let kilobytes: usize = rss.trim().trim_end_matches(" kB").trim().parse().ok()?;
            return kilobytes.checked_mul(1024);
        }
    }
    None
}

/// Refuses what is not a regular file, naming what it is: a device or a socket has no end to read
/// to, and a state is never one.
pub fn regular_file(metadata: &Metadata) -> io::Result<()> {
    let kind = metadata.file_type();
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "it is a directory, not a file",
        ));
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is not a regular file",
        ));
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("it is {what}, not a regular file"),
    ))
}

/// How a file named on the command line is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readable {
    /// A regular file: its size is known, and it may be mapped.
    File,
    /// A pipe the shell handed this process (`<(terraform state pull)`), read as a stream.
    Pipe,
}

/// Decides how the file at `path` (whose `metadata` follows links) may be read, refusing the rest
/// before anything is opened. A pipe is read only as a descriptor this process was handed
/// ([`is_handed_descriptor`]): its writer is already there. A named pipe elsewhere in the file system
/// may have no writer at all, and opening it would wait for one forever; it is refused as folders
/// skip it, with [`PIPE_HINT`] for the caller to show.
pub fn readable(path: &Path, metadata: &Metadata) -> io::Result<Readable> {
    if metadata.file_type().is_fifo() && is_handed_descriptor(path) {
        return Ok(Readable::Pipe);
    }
    regular_file(metadata).map(|()| Readable::File)
}

/// The way to read a named pipe, for the refusal of one named directly.
pub const PIPE_HINT: &str = "read a pipe through standard input (`-`, as in `statectl list - < PIPE`) or a shell's `<(command)`";

/// Whether `path` names one of this process's open descriptors, as the `/dev/fd/63` a shell passes
/// for `<(command)` does (also `/proc/self/fd/N` and `/dev/stdin`). Judged from the path's text: what
/// matters is that the shell opened it, not where its link points.
pub fn is_handed_descriptor(path: &Path) -> bool {
    let Some(text) = path.to_str() else {
        return false;
    };
    if text == "/dev/stdin" {
        return true;
    }
    ["/dev/fd/", "/proc/self/fd/"].iter().any(|prefix| {
        text.strip_prefix(prefix).is_some_and(|number| {
            !number.is_empty() && number.bytes().all(|byte| byte.is_ascii_digit())
        })
    })
}

fn too_big(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("{what}, more than statectl reads of one state (4 GiB)"),
    )
}

/// The most statectl reads of a rules, policy, profile, credentials or configuration file (256 MiB):
/// such files are small, and a device or an endless pipe named by mistake must not fill the memory.
pub const MAX_TEXT_BYTES: u64 = 256 << 20;

/// Reads a text file named on the command line or found in a configuration folder: a device, socket,
/// directory or named pipe is refused before reading ([`readable`]), a pipe the shell handed over is
/// read up to [`MAX_TEXT_BYTES`], and the text must be UTF-8. Errors read like `std::fs::read_to_string`'s.
pub fn read_text(path: &Path) -> io::Result<String> {
    readable(path, &std::fs::metadata(path)?)?;
    let mut bytes = Vec::new();
    File::open(path)?
        .take(MAX_TEXT_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_TEXT_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            "it goes on past 256 MiB, more than statectl reads of such a file",
        ));
    }
    String::from_utf8(bytes).map_err(|error| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "it is not UTF-8 text (byte {})",
                error.utf8_error().valid_up_to()
            ),
        )
    })
}

/// Reads a stream (standard input, a pipe) to its end, after `start` (bytes already read from it),
/// refusing more than [`MAX_STATE_BYTES`].
pub fn read_stream(reader: impl Read, start: Vec<u8>) -> io::Result<Bytes> {
    read_stream_capped(reader, start, MAX_STATE_BYTES)
}

fn read_stream_capped(reader: impl Read, mut bytes: Vec<u8>, limit: u64) -> io::Result<Bytes> {
    let already = bytes.len() as u64;
    // One byte past the limit tells a stream of exactly `limit` bytes from a longer one.
    let mut reader = reader.take((limit + 1).saturating_sub(already));
    reader.read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_big("the input goes on past 4 GiB"));
    }
    Ok(Bytes::Heap(bytes))
}

/// Reads up to `length` bytes from the start of a stream (fewer only at its end).
pub fn read_prefix(reader: &mut impl Read, length: usize) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(length);
    reader.take(length as u64).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Appends the file's bytes from offset `bytes.len()` to `bytes` (the file's first bytes, or
/// none) with positional reads, straight into the vector's room: a vector sized for the file takes
/// it in one read, and a second finds its end. A file that grows past a state's largest size while
/// it is read (another process appending without end) is refused there, not followed.
///
/// Why not a chunk copied over: a folder of 2,070 small states zeroed a 64 KB chunk and copied it
/// for each one, more than reading most of them.
fn read_at_into(file: &File, bytes: &mut Vec<u8>) -> io::Result<()> {
    read_at_into_at_most(
        file,
        bytes,
        usize::try_from(MAX_STATE_BYTES).unwrap_or(usize::MAX),
    )
}

/// [`read_at_into`], refusing more than `at_most` bytes (the room it makes never passes one
/// byte more).
fn read_at_into_at_most(file: &File, bytes: &mut Vec<u8>, at_most: usize) -> io::Result<()> {
    loop {
        let length = bytes.len();
        if length > at_most {
            bytes.truncate(0);
            return Err(too_big("the file grew while it was read"));
        }
        if length == bytes.capacity() {
            // Exact: the room doubles by this step's own count, never past the limit.
            bytes.reserve_exact(length.max(1 << 16).min(at_most + 1 - length));
        }
        bytes.resize(bytes.capacity(), 0);
        let read = loop {
            match file.read_at(&mut bytes[length..], length as u64) {
                Ok(read) => break read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    bytes.truncate(length);
                    return Err(error);
                }
            }
        };
        bytes.truncate(length + read);
        if read == 0 {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_read_up_to_the_limit_and_refused_past_it() {
        let exact = read_stream_capped(&[7u8; 10][..], vec![1, 2], 12).unwrap();
        assert_eq!(exact.len(), 12);
        let error = read_stream_capped(&[7u8; 11][..], vec![1, 2], 12).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        assert!(
            error
                .to_string()
                .contains("more than statectl reads of one state (4 GiB)")
        );
        // An endless stream stops at the limit rather than filling the memory.
        let error = read_stream_capped(io::repeat(0), Vec::new(), 1 << 20).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
    }

    #[test]
    fn only_a_handed_descriptor_is_read_as_a_pipe() {
        for handed in ["/dev/fd/63", "/proc/self/fd/0", "/dev/stdin"] {
            assert!(is_handed_descriptor(Path::new(handed)), "{handed}");
        }
        for named in [
            "state.fifo",
            "/tmp/fd/63",
            "/dev/fd/",
            "/dev/fd/6x",
            "/dev/fd/../tmp/p",
            "/proc/1/fd/3",
        ] {
            assert!(!is_handed_descriptor(Path::new(named)), "{named}");
        }
    }

    #[test]
    fn devices_are_refused_before_reading() {
        let file = File::open("/dev/zero").unwrap();
        let error = read_all(&file).unwrap_err();
        assert_eq!(
            error.to_string(),
            "it is a character device, not a regular file"
        );
    }

    /// Every size around the prefix and the buffer's edges, copied and mapped, with the first
    /// bytes read before as `read_path` reads them; and a file that grew after its size was read.
    #[test]
    fn a_file_read_after_its_prefix_is_read_whole_once() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("state.tfstate");
        for size in [0, 1, 4095, 4096, 4097, 65_535, 65_536, 65_537, 200_000] {
            let content: Vec<u8> = (0..size).map(|at| (at % 251) as u8).collect();
            std::fs::write(&path, &content).unwrap();
            for copy in [true, false] {
                let mut file = File::open(&path).unwrap();
                let metadata = file.metadata().unwrap();
                let prefix = read_prefix(&mut file, 4096).unwrap();
                assert_eq!(prefix.len(), size.min(4096));
                let read = read_known(&file, &metadata, &prefix, copy).unwrap();
                assert!(read[..] == content[..], "{size} bytes, copy {copy}");
            }
            // Grown by 10,000 bytes after its size was read: the rest is read too.
            let mut file = File::open(&path).unwrap();
            let metadata = file.metadata().unwrap();
            let prefix = read_prefix(&mut file, 4096).unwrap();
            let grown: Vec<u8> = content.iter().copied().chain([9; 10_000]).collect();
            std::fs::write(&path, &grown).unwrap();
            let read = read_known(&file, &metadata, &prefix, true).unwrap();
            assert!(read[..] == grown[..], "{size} bytes grown");
        }
    }

    /// A file below 64 KB is read whole in one go, every size around the sniffed prefix and the
    /// bound; from the bound, and at a size of 0 (`/proc`'s files say 0), it is left to
    /// `read_known`; a file that grew after its size was read is read to its end, one that shrank
    /// to its end too; a directory is refused.
    #[test]
    fn a_small_file_is_read_whole_at_the_size_its_metadata_gives() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("state.tfstate");
        for size in [0, 1, 4095, 4096, 4097, SHARED_FROM - 1, SHARED_FROM] {
            let content: Vec<u8> = (0..size).map(|at| (at % 251) as u8).collect();
            std::fs::write(&path, &content).unwrap();
            let file = File::open(&path).unwrap();
            let read = read_small(&file, &file.metadata().unwrap()).unwrap();
            if (1..SHARED_FROM).contains(&size) {
                assert!(read.as_deref() == Some(&content[..]), "{size} bytes");
            } else {
                assert!(read.is_none(), "{size} bytes");
            }
        }
        // Grown after its size was read, by one byte and by many: read to its end (the stamp's
        // check then refuses it as a rewrite; a file system that reports a size it does not
        // hold is read whole).
        let long = vec![b'x'; 70_000];
        for grown in [&b"0123456789a"[..], b"0123456789abcdef", &long] {
            std::fs::write(&path, b"0123456789").unwrap();
            let file = File::open(&path).unwrap();
            let metadata = file.metadata().unwrap();
            std::fs::write(&path, grown).unwrap();
            assert_eq!(
                read_small(&file, &metadata).unwrap().as_deref(),
                Some(grown),
                "{} bytes",
                grown.len()
            );
        }
        std::fs::write(&path, b"0123456789").unwrap();
        let file = File::open(&path).unwrap();
        let metadata = file.metadata().unwrap();
        std::fs::write(&path, b"01234").unwrap();
        assert_eq!(
            read_small(&file, &metadata).unwrap().as_deref(),
            Some(&b"01234"[..])
        );
        // A pseudo-file: size 0, content all the same.
        if let Ok(status) = File::open("/proc/self/status") {
            assert_eq!(
                read_small(&status, &status.metadata().unwrap()).unwrap(),
                None
            );
            let read = read_known(&status, &status.metadata().unwrap(), &[], true).unwrap();
            assert!(
                read.starts_with(b"Name:"),
                "{:?}",
                &read[..read.len().min(20)]
            );
        }
        let folder_itself = File::open(folder.path()).unwrap();
        let error = read_small(&folder_itself, &folder_itself.metadata().unwrap()).unwrap_err();
        assert_eq!(error.to_string(), "it is a directory, not a file");
    }

    /// A file longer than the most a read takes is refused once past it, its room never more than
    /// that and one byte; one exactly that long is read whole.
    #[test]
    fn a_file_growing_past_the_most_a_read_takes_is_refused() {
        use std::io::Write as _;

        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&vec![b'x'; 200_000]).unwrap();
        for at_most in [0, 1, 65_536, 199_999] {
            let mut bytes = Vec::new();
            let error = read_at_into_at_most(&file, &mut bytes, at_most).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::FileTooLarge, "{at_most}");
            assert!(
                error.to_string().contains("grew while it was read"),
                "{error}"
            );
        }
        let mut bytes = Vec::new();
        read_at_into_at_most(&file, &mut bytes, 200_000).unwrap();
        assert_eq!(bytes.len(), 200_000);
        assert!(bytes.capacity() <= 200_001, "{}", bytes.capacity());
    }

    #[test]
    fn a_reading_command_maps_a_file_from_64_kb_and_reads_it_whole() {
        let dir = tempfile::tempdir().unwrap();
        for length in [0, 10, SHARED_FROM - 1, SHARED_FROM, SHARED_FROM + 4097] {
            let path = dir.path().join(format!("{length}.tfstate"));
            let text: Vec<u8> = (0..length).map(|at| b'a' + (at % 26) as u8).collect();
            std::fs::write(&path, &text).unwrap();
            let bytes = map_all(&File::open(&path).unwrap()).unwrap();
            assert_eq!(matches!(bytes, Bytes::Shared { .. }), length >= SHARED_FROM);
            assert_eq!(&bytes[..], &text[..], "{length} bytes");
        }
    }

    #[test]
    fn zeroed_buffers_are_written_copied_and_cut_at_every_size() {
        for length in [0, 10, MAPPED_FROM + 5] {
            let mut bytes = Bytes::zeroed(length);
            assert_eq!(bytes.len(), length);
            assert!(bytes.iter().all(|&b| b == 0));
            assert_eq!(matches!(bytes, Bytes::Mapped { .. }), length >= MAPPED_FROM);
            bytes.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
            let copy = Bytes::copy_of(&bytes);
            assert_eq!(&copy[..], &bytes[..]);
            bytes.truncate(length / 2);
            assert_eq!(bytes.len(), length / 2);
            assert_eq!(&bytes[..], &copy[..length / 2]);
            // Truncating never lengthens.
            bytes.truncate(length);
            assert_eq!(bytes.len(), length / 2);
        }
    }
}
