//! The part of MessagePack that cty uses, read into a small tree and written with the compact
//! encodings. Reading is bounded: nesting deeper than `MAX_DEPTH` is an error, not a stack overflow,
//! and lengths are checked against the bytes left before anything is allocated.

/// A decoded MessagePack value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Msg {
    Nil,
    Bool(bool),
    /// Every integer format, signed or not.
    Int(i128),
    Float(f64),
    Str(String),
    Bin(Vec<u8>),
    Array(Vec<Msg>),
    Map(Vec<(Msg, Msg)>),
    /// An extension: cty's unknown values are extensions.
    Ext(i8),
}

const MAX_DEPTH: usize = 512;

/// Why bytes are not one MessagePack value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MsgpackError {
    #[error("the value ends early, at byte {0}")]
    EndsEarly(usize),
    #[error("{0} bytes left over after the value")]
    LeftOver(usize),
    #[error("values nest deeper than {MAX_DEPTH} levels")]
    TooDeep,
    #[error("byte 0xc1 is never used in MessagePack")]
    NeverUsed,
    #[error("a string is not UTF-8")]
    NotUtf8,
    #[error("an array claims more elements than the bytes left")]
    ArrayTooLong,
    #[error("a map claims more entries than the bytes left")]
    MapTooLong,
    #[error("a length does not fit in memory")]
    LengthTooLarge,
}

/// Reads one value that must fill `bytes` exactly.
pub(super) fn read(bytes: &[u8]) -> Result<Msg, MsgpackError> {
    let mut reader = Reader { bytes, at: 0 };
    let value = reader.value(0)?;
    if reader.at != bytes.len() {
        return Err(MsgpackError::LeftOver(bytes.len() - reader.at));
    }
    Ok(value)
}

struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, count: usize) -> Result<&[u8], MsgpackError> {
        let end = self
            .at
            .checked_add(count)
            .filter(|end| *end <= self.bytes.len())
            .ok_or(MsgpackError::EndsEarly(self.bytes.len()))?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn uint(&mut self, width: usize) -> Result<u64, MsgpackError> {
        Ok(self
            .take(width)?
            .iter()
            .fold(0u64, |value, byte| (value << 8) | u64::from(*byte)))
    }

    fn value(&mut self, depth: usize) -> Result<Msg, MsgpackError> {
        if depth > MAX_DEPTH {
            return Err(MsgpackError::TooDeep);
        }
        let marker = self.take(1)?[0];
        Ok(match marker {
            0x00..=0x7f => Msg::Int(i128::from(marker)),
            0x80..=0x8f => self.map(usize::from(marker & 0x0f), depth)?,
            0x90..=0x9f => self.array(usize::from(marker & 0x0f), depth)?,
            0xa0..=0xbf => self.string(usize::from(marker & 0x1f))?,
            0xc0 => Msg::Nil,
            0xc2 => Msg::Bool(false),
            0xc3 => Msg::Bool(true),
            0xc4..=0xc6 => {
                let length = self.uint(1 << (marker - 0xc4))?;
                Msg::Bin(self.take(length_of(length)?)?.to_vec())
            }
            0xc7..=0xc9 => {
                let length = self.uint(1 << (marker - 0xc7))?;
                let kind = self.take(1)?[0].cast_signed();
                self.take(length_of(length)?)?;
                Msg::Ext(kind)
            }
            0xca => Msg::Float(f64::from(f32::from_bits(self.uint(4)? as u32))),
            0xcb => Msg::Float(f64::from_bits(self.uint(8)?)),
            0xcc..=0xcf => Msg::Int(i128::from(self.uint(1 << (marker - 0xcc))?)),
            0xd0..=0xd3 => {
                let width = 1usize << (marker - 0xd0);
                let raw = self.uint(width)?;
                // Sign-extend from the value's own width.
                let shift = 64 - 8 * width as u32;
                Msg::Int(i128::from((raw << shift).cast_signed() >> shift))
            }
            0xd4..=0xd8 => {
                let kind = self.take(1)?[0].cast_signed();
                self.take(1 << (marker - 0xd4))?;
                Msg::Ext(kind)
            }
            0xd9..=0xdb => {
                let length = self.uint(1 << (marker - 0xd9))?;
                self.string(length_of(length)?)?
            }
            0xdc | 0xdd => {
                let length = self.uint(if marker == 0xdc { 2 } else { 4 })?;
                self.array(length_of(length)?, depth)?
            }
            0xde | 0xdf => {
                let length = self.uint(if marker == 0xde { 2 } else { 4 })?;
                self.map(length_of(length)?, depth)?
            }
            0xe0..=0xff => Msg::Int(i128::from(marker.cast_signed())),
            0xc1 => return Err(MsgpackError::NeverUsed),
        })
    }

    fn string(&mut self, length: usize) -> Result<Msg, MsgpackError> {
        let bytes = self.take(length)?;
        String::from_utf8(bytes.to_vec())
            .map(Msg::Str)
            .map_err(|_| MsgpackError::NotUtf8)
    }

    fn array(&mut self, length: usize, depth: usize) -> Result<Msg, MsgpackError> {
        // Each element takes at least one byte: a length beyond the bytes left is a lie.
        if length > self.bytes.len() - self.at {
            return Err(MsgpackError::ArrayTooLong);
        }
        let mut items = Vec::with_capacity(length);
        for _ in 0..length {
            items.push(self.value(depth + 1)?);
        }
        Ok(Msg::Array(items))
    }

    fn map(&mut self, length: usize, depth: usize) -> Result<Msg, MsgpackError> {
        if length.saturating_mul(2) > self.bytes.len() - self.at {
            return Err(MsgpackError::MapTooLong);
        }
        let mut entries = Vec::with_capacity(length);
        for _ in 0..length {
            let key = self.value(depth + 1)?;
            let value = self.value(depth + 1)?;
            entries.push((key, value));
        }
        Ok(Msg::Map(entries))
    }
}

fn length_of(length: u64) -> Result<usize, MsgpackError> {
    usize::try_from(length).map_err(|_| MsgpackError::LengthTooLarge)
}

/// Appends MessagePack to a buffer, each value in its most compact form.
#[derive(Debug, Default)]
pub(super) struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub(super) fn nil(&mut self) {
        self.bytes.push(0xc0);
    }

    pub(super) fn bool(&mut self, value: bool) {
        self.bytes.push(if value { 0xc3 } else { 0xc2 });
    }

    pub(super) fn int(&mut self, value: i64) {
        match value {
            // Positive and negative fixints are the value's own low byte.
            -32..=0x7f => self.bytes.push(value.to_be_bytes()[7]),
            _ if i8::try_from(value).is_ok() => self.sized(0xd0, value.cast_unsigned(), 1),
            _ if i16::try_from(value).is_ok() => self.sized(0xd1, value.cast_unsigned(), 2),
            _ if i32::try_from(value).is_ok() => self.sized(0xd2, value.cast_unsigned(), 4),
            _ => self.sized(0xd3, value.cast_unsigned(), 8),
        }
    }

    pub(super) fn str(&mut self, text: &str) {
        let length = text.len();
        if length < 32 {
            self.bytes.push(0xa0 | length as u8);
        } else {
            self.length(0xd9, length);
        }
        self.bytes.extend_from_slice(text.as_bytes());
    }

    pub(super) fn bin(&mut self, data: &[u8]) {
        self.length(0xc4, data.len());
        self.bytes.extend_from_slice(data);
    }

    pub(super) fn array(&mut self, length: usize) {
        self.container(length, [0x90, 0xdc, 0xdd]);
    }

    pub(super) fn map(&mut self, length: usize) {
        self.container(length, [0x80, 0xde, 0xdf]);
    }

    /// An array's or a map's header: the fix form's marker (with the length in its low four bits)
    /// below 16 entries, else the 16-bit or the 32-bit form's.
    fn container(&mut self, length: usize, [fix, short_form, long_form]: [u8; 3]) {
        if length < 16 {
            self.bytes.push(fix | length as u8);
        } else if let Ok(short) = u16::try_from(length) {
            self.sized(short_form, u64::from(short), 2);
        } else {
            self.sized(long_form, length as u64, 4);
        }
    }

    /// A marker of the 8/16/32-bit length family starting at `first` (str8, bin8).
    fn length(&mut self, first: u8, length: usize) {
        if let Ok(byte) = u8::try_from(length) {
            self.sized(first, u64::from(byte), 1);
        } else if let Ok(short) = u16::try_from(length) {
            self.sized(first + 1, u64::from(short), 2);
        } else {
            self.sized(first + 2, length as u64, 4);
        }
    }

    fn sized(&mut self, marker: u8, value: u64, width: usize) {
        self.bytes.push(marker);
        self.bytes
            .extend_from_slice(&value.to_be_bytes()[8 - width..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_integer_float_and_container_form() {
        let cases: &[(&[u8], Msg)] = &[
            (&[0x05], Msg::Int(5)),
            (&[0xff], Msg::Int(-1)),
            (&[0xcc, 0xff], Msg::Int(255)),
            (&[0xcd, 0x01, 0x00], Msg::Int(256)),
            (
                &[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
                Msg::Int(i128::from(u64::MAX)),
            ),
            (&[0xd0, 0x80], Msg::Int(-128)),
            (&[0xd1, 0xff, 0x7f], Msg::Int(-129)),
            (
                &[0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0],
                Msg::Int(i128::from(i64::MIN)),
            ),
            (&[0xca, 0x3f, 0xc0, 0, 0], Msg::Float(1.5)),
            (
                &[0xcb, 0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a],
                Msg::Float(0.1),
            ),
            (&[0xa2, b'h', b'i'], Msg::Str("hi".into())),
            (&[0xd9, 0x01, b'x'], Msg::Str("x".into())),
            (&[0xc4, 0x01, 0x07], Msg::Bin(vec![7])),
            (
                &[0x92, 0xc0, 0xc3],
                Msg::Array(vec![Msg::Nil, Msg::Bool(true)]),
            ),
            (
                &[0x81, 0xa1, b'a', 0xc2],
                Msg::Map(vec![(Msg::Str("a".into()), Msg::Bool(false))]),
            ),
            (&[0xd4, 0x00, 0x00], Msg::Ext(0)),
        ];
        for (bytes, expected) in cases {
            assert_eq!(&read(bytes).unwrap(), expected, "{bytes:x?}");
        }
    }

    #[test]
    fn bad_bytes_are_errors_never_panics_or_huge_allocations() {
        assert_eq!(read(&[0xa3, b'a']), Err(MsgpackError::EndsEarly(2)));
        assert_eq!(
            read(&[0xdd, 0xff, 0xff, 0xff, 0xff]),
            Err(MsgpackError::ArrayTooLong)
        );
        assert_eq!(read(&[0xc1]), Err(MsgpackError::NeverUsed));
        assert_eq!(
            read(&[0xc0, 0xc0]).unwrap_err().to_string(),
            "1 bytes left over after the value"
        );
        let deep = vec![0x91; 10_000];
        assert_eq!(read(&deep), Err(MsgpackError::TooDeep));
    }

    #[test]
    fn writes_compact_forms_that_read_back() {
        for value in [
            0i64,
            127,
            128,
            -1,
            -32,
            -33,
            -128,
            -129,
            65_535,
            -40_000,
            i64::MAX,
            i64::MIN,
        ] {
            let mut writer = Writer::default();
            writer.int(value);
            assert_eq!(
                read(&writer.bytes).unwrap(),
                Msg::Int(i128::from(value)),
                "{value}"
            );
        }
        let mut writer = Writer::default();
        writer.int(127);
        writer.int(-32);
        assert_eq!(writer.bytes, [0x7f, 0xe0]);
        let long = "x".repeat(300);
        let mut writer = Writer::default();
        writer.str(&long);
        assert_eq!(&writer.bytes[..3], &[0xda, 0x01, 0x2c]);
        assert_eq!(read(&writer.bytes).unwrap(), Msg::Str(long));
    }
}
