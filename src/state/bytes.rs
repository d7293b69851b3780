//! The bytes of a state file in memory. Large files go into an anonymous mapping that asks for huge
//! pages: with 4 KB pages, reading a 50 MB state costs some 12,000 page faults, about a third of
//! `statectl list`'s time; with 2 MB pages, a few dozen.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;
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
    let mut file = File::open(path)?;
    let size = usize::try_from(file.metadata()?.len()).unwrap_or(usize::MAX);
    if size < MAPPED_FROM {
        return std::fs::read(path).map(Bytes::Heap);
    }
    // One spare byte tells whether the file grew since its size was read.
    let mut map = MmapOptions::new().len(size + 1).map_anon()?;
    // Only advice: without huge pages the read still works, just with more page faults.
    let _ = map.advise(Advice::HugePage);
    let mut length = 0;
    loop {
        match file.read(&mut map[length..]) {
            Ok(0) => break,
            Ok(read) => length += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
        if length == map.len() {
            // The file grew while being read: read it again into a buffer that can grow too.
            return std::fs::read(path).map(Bytes::Heap);
        }
    }
    Ok(Bytes::Mapped { map, length })
}
