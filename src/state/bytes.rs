//! The bytes of a state file in memory. Large files go into an anonymous mapping that asks for huge
//! pages: with 4 KB pages, reading a 50 MB state costs some 12,000 page faults, about a third of
//! `statectl list`'s time; with 2 MB pages, a few dozen.

use std::fs::File;
use std::io;
use std::ops::Deref;
use std::os::unix::fs::FileExt;
use std::path::Path;

use memmap2::{Advice, MmapMut, MmapOptions};

/// Below this size, a plain heap buffer is as fast and simpler.
const MAPPED_FROM: usize = 4 << 20;

/// A state's bytes: a heap buffer, or an anonymous mapping holding `length` bytes.
#[derive(Debug)]
pub enum Bytes {
    Heap(Vec<u8>),
    Mapped { map: MmapMut, length: usize },
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Heap(bytes) => bytes,
            Bytes::Mapped { map, length } => &map[..*length],
        }
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Bytes {
        Bytes::Heap(bytes)
    }
}

/// Reads a whole file. The mapping is anonymous (a private copy), so another process rewriting the
/// file meanwhile can never change or invalidate what statectl has read.
pub fn read_file(path: &Path) -> io::Result<Bytes> {
    read_all(&File::open(path)?)
}

/// Reads all of an open file from its first byte, through that handle only. The state store needs
/// this: a POSIX lock is dropped when *any* handle of the file in the process closes, so a file read
/// under the lock must never be opened a second time.
pub fn read_all(file: &File) -> io::Result<Bytes> {
    let size = usize::try_from(file.metadata()?.len()).unwrap_or(usize::MAX);
    if size < MAPPED_FROM {
        let mut bytes = Vec::with_capacity(size + 1);
        read_at_into(file, &mut bytes)?;
        return Ok(Bytes::Heap(bytes));
    }
    // One spare byte tells whether the file grew since its size was read.
    let mut map = MmapOptions::new().len(size + 1).map_anon()?;
    // Only advice: without huge pages the read still works, just with more page faults.
    let _ = map.advise(Advice::HugePage);
    let mut length = 0;
    loop {
        match file.read_at(&mut map[length..], length as u64) {
            Ok(0) => break,
            Ok(read) => length += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
        if length == map.len() {
            // The file grew while being read: read it again into a buffer that can grow too.
            let mut bytes = Vec::with_capacity(length * 2);
            read_at_into(file, &mut bytes)?;
            return Ok(Bytes::Heap(bytes));
        }
    }
    Ok(Bytes::Mapped { map, length })
}

/// Appends the file's bytes from offset 0 to `bytes` (expected empty) with positional reads.
fn read_at_into(file: &File, bytes: &mut Vec<u8>) -> io::Result<()> {
    let mut chunk = vec![0; 1 << 16];
    loop {
        match file.read_at(&mut chunk, bytes.len() as u64) {
            Ok(0) => return Ok(()),
            Ok(read) => bytes.extend_from_slice(&chunk[..read]),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
}
