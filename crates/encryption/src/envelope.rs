//! OpenTofu's encrypted-state envelope: recognised and parsed from the stored bytes, and written
//! exactly as OpenTofu writes it (`internal/encryption/base.go`, `state.go`).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use statectl_state::state::bytes::Bytes;

use crate::error::Error;
use crate::gojson::{decode_base64, encode_base64, push_object, push_string};

/// The one envelope version OpenTofu writes and reads.
pub const ENCRYPTION_VERSION: &str = "v0";

/// A parsed envelope: what a reader can know without the key, and the ciphertext.
#[derive(Clone, PartialEq, Eq)]
pub struct Envelope {
    /// `serial` in clear (absent in plan envelopes and OpenTofu 1.7 alpha states).
    pub serial: Option<i64>,
    /// `lineage` in clear (absent or empty likewise).
    pub lineage: Option<String>,
    /// Each key provider's metadata (its address, or its `encrypted_metadata_alias`), decoded
    /// from base64: JSON the key provider reads back.
    pub meta: BTreeMap<String, Vec<u8>>,
    /// The method's output (for aes_gcm: nonce, ciphertext, tag).
    pub encrypted_data: Bytes,
}

impl std::fmt::Debug for Envelope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Envelope")
            .field("serial", &self.serial)
            .field("lineage", &self.lineage)
            .field("meta", &self.meta.keys().collect::<Vec<_>>())
            .field(
                "encrypted_data",
                &format_args!("{} bytes", self.encrypted_data.len()),
            )
            .finish()
    }
}

impl Envelope {
    /// The key providers the envelope holds metadata for: what a reader without the key can name.
    pub fn key_providers(&self) -> impl Iterator<Item = &str> {
        self.meta.keys().map(String::as_str)
    }
}

/// The envelope's fields as parsed, its data as `Data`: see [`Fast`] and [`Raw`].
#[derive(Deserialize)]
struct Parsed<Data> {
    #[serde(default)]
    serial: Option<Value>,
    #[serde(default)]
    lineage: Option<Value>,
    #[serde(default)]
    meta: Option<Value>,
    #[serde(default)]
    encrypted_data: Option<Data>,
    #[serde(default)]
    encryption_version: Option<Value>,
}

impl<Data> Parsed<Data> {
    /// The fields apart from the data, and the data.
    fn without_data<Other>(self) -> (Parsed<Other>, Option<Data>) {
        let fields = Parsed {
            serial: self.serial,
            lineage: self.lineage,
            meta: self.meta,
            encrypted_data: None,
            encryption_version: self.encryption_version,
        };
        (fields, self.encrypted_data)
    }
}

/// The envelope as parsed when its data is a plain JSON string: borrowed, so the tens of
/// megabytes of base64 are scanned once and not copied.
type Fast<'a> = Parsed<&'a str>;

/// Any other shape (escapes in the data, wrong types): parsed generally, for precise errors.
type Raw = Parsed<Value>;

/// How far into a file the truncation check looks for the envelope's keys.
const HEAD: usize = 64 * 1024;

/// Whether `bytes` is an envelope (as OpenTofu decides: a JSON object whose
/// `encryption_version` is a non-empty string), parsed; `Ok(None)` for anything else, which
/// the state parser then reads (or refuses) as plaintext.
pub fn parse(bytes: &[u8]) -> Result<Option<Envelope>, Error> {
    Ok(parse_alongside(bytes, |_| ())?.map(|(envelope, ())| envelope))
}

/// [`parse`], with `meanwhile` run on the envelope's metadata while its data is decoded on
/// another thread: a reader derives its key (the slow part: 600,000 rounds of SHA-512 by
/// default, or a call to KMS) while the tens of megabytes of base64 are decoded. `meanwhile`
/// runs when the bytes are an envelope whose fields are sound; a bad `encrypted_data` still
/// fails the parse, whatever `meanwhile` found.
pub fn parse_alongside<T>(
    bytes: &[u8],
    meanwhile: impl FnOnce(&BTreeMap<String, Vec<u8>>) -> T,
) -> Result<Option<(Envelope, T)>, Error> {
    // A plaintext state of tens of megabytes is not parsed twice. An envelope's one large value
    // is its data, so its marker key, a top-level key, sits before the data (near the top) or
    // after it (near the end, where OpenTofu writes it): without it there, it is no envelope.
    if !marker_near(bytes) {
        return without_marker(bytes).map(|()| None);
    }
    let Some((mut raw, data)) = read(bytes)? else {
        return Ok(None);
    };
    let Some(mut envelope) = fields(&mut raw)? else {
        return Ok(None);
    };
    let Some(text) = data else {
        return Err(missing_data(raw.encrypted_data.as_ref()));
    };
    let (decoded, found) = side_by_side(
        text.len(),
        || decode_data(&text),
        || meanwhile(&envelope.meta),
    );
    envelope.encrypted_data = decoded?;
    Ok(Some((envelope, found)))
}

/// Runs `decode` (of `len` bytes of base64) and `meanwhile`: side by side when there is enough to
/// decode to be worth a thread, else one after the other.
fn side_by_side<D: Send, T>(
    len: usize,
    decode: impl FnOnce() -> D + Send,
    meanwhile: impl FnOnce() -> T,
) -> (D, T) {
    if len < DECODE_ALONGSIDE_FROM {
        let decoded = decode();
        return (decoded, meanwhile());
    }
    std::thread::scope(|scope| {
        let decoding = scope.spawn(decode);
        let found = meanwhile();
        // The decoders return their errors and do not panic; if one ever did, so do we.
        let decoded = decoding
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (decoded, found)
    })
}

/// Below this much base64, a thread of its own is not worth starting.
const DECODE_ALONGSIDE_FROM: usize = 1 << 20;

/// [`parse`] of bytes the caller hands over (a state just read): the data is decoded and left
/// in their own buffer, so the tens of megabytes need no fresh allocation. `Err(bytes)` gives
/// them back, untouched, when they are not an envelope.
pub fn parse_owned(bytes: impl Into<Bytes>) -> Result<Result<Envelope, Bytes>, Error> {
    Ok(parse_owned_alongside(bytes.into(), |_| ())?.map(|(envelope, ())| envelope))
}

/// [`parse_owned`], with `meanwhile` run on the metadata while the data is decoded, as
/// [`parse_alongside`] runs it.
pub fn parse_owned_alongside<T>(
    mut bytes: Bytes,
    meanwhile: impl FnOnce(&BTreeMap<String, Vec<u8>>) -> T,
) -> Result<Result<(Envelope, T), Bytes>, Error> {
    // A plaintext state (the common case) is told here, each byte searched once, not again by
    // the general path below.
    if !marker_near(&bytes) {
        return without_marker(&bytes).map(|()| Err(bytes));
    }
    let Some((mut raw, range)) = split(&bytes) else {
        // Not an envelope, or not one whose data is a plain string: the general path decides,
        // errors included, and decodes into a buffer of its own.
        return Ok(match parse_alongside(&bytes, meanwhile)? {
            Some(found) => Ok(found),
            None => Err(bytes),
        });
    };
    let Some(mut envelope) = fields(&mut raw)? else {
        return Ok(Err(bytes));
    };
    let text = &mut bytes[range.clone()];
    let (decoded, found) = side_by_side(
        text.len(),
        // Checked first so that an in-place decode never fails halfway, leaving the bytes
        // as read for the general path (Go's lenient cases, and every error).
        || {
            base64_simd::STANDARD.check(text).ok()?;
            base64_simd::STANDARD
                .decode_inplace(text)
                .ok()
                .map(|data| data.len())
        },
        || meanwhile(&envelope.meta),
    );
    let Some(decoded) = decoded else {
        return Ok(match parse(&bytes)? {
            Some(general) => Ok((general, found)),
            None => Err(bytes),
        });
    };
    bytes.copy_within(range.start..range.start + decoded, 0);
    bytes.truncate(decoded);
    envelope.encrypted_data = bytes;
    Ok(Ok((envelope, found)))
}

fn marker_near(bytes: &[u8]) -> bool {
    const MARKER: &[u8] = b"\"encryption_version\"";
    let near = |part: &[u8]| memchr::memmem::find(part, MARKER).is_some();
    let head = bytes.len().min(HEAD);
    // The tail from where the head's search could not have found the marker whole: a file of less
    // than two heads (most states) is searched once, not twice over.
    let tail = bytes
        .len()
        .saturating_sub(HEAD)
        .max(head.saturating_sub(MARKER.len() - 1));
    near(&bytes[..head]) || near(&bytes[tail..])
}

/// What bytes without the marker near either end are: no envelope (`Ok`), or a damaged one.
fn without_marker(bytes: &[u8]) -> Result<(), Error> {
    if looks_cut_envelope(bytes) {
        Err(not_json(bytes))
    } else {
        Ok(())
    }
}

/// The envelope from its fields, all but the data (left empty): `None` when they make no
/// envelope (no or an empty `encryption_version`). `raw.encrypted_data` is left for
/// [`missing_data`].
fn fields(raw: &mut Raw) -> Result<Option<Envelope>, Error> {
    let version = match raw.encryption_version.take() {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(v)) if v.is_empty() => return Ok(None),
        Some(Value::String(v)) => v,
        Some(_) => {
            return Err(Error::EnvelopeType {
                field: "encryption_version".into(),
                expected: "a string",
            });
        }
    };
    if version != ENCRYPTION_VERSION {
        return Err(Error::UnknownVersion { found: version });
    }
    let serial = match raw.serial.take() {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => Some(n.as_i64().ok_or(Error::EnvelopeType {
            field: "serial".into(),
            expected: "a whole number",
        })?),
        Some(_) => {
            return Err(Error::EnvelopeType {
                field: "serial".into(),
                expected: "a number",
            });
        }
    };
    let lineage = match raw.lineage.take() {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => {
            return Err(Error::EnvelopeType {
                field: "lineage".into(),
                expected: "a string",
            });
        }
    };
    let meta = match raw.meta.take() {
        None | Some(Value::Null) => return Err(Error::EnvelopeMissing { field: "meta" }),
        Some(Value::Object(map)) => {
            let mut meta = BTreeMap::new();
            for (key, value) in map {
                let field = format!("meta[{key:?}]");
                let Value::String(text) = value else {
                    return Err(Error::EnvelopeType {
                        field,
                        expected: "a base64 string",
                    });
                };
                meta.insert(key, decode(&field, text.as_bytes())?);
            }
            meta
        }
        Some(_) => {
            return Err(Error::EnvelopeType {
                field: "meta".into(),
                expected: "an object",
            });
        }
    };
    Ok(Some(Envelope {
        serial,
        lineage,
        meta,
        encrypted_data: Bytes::default(),
    }))
}

/// The error for an envelope whose `encrypted_data` is not a string: absent, or another type.
fn missing_data(encrypted_data: Option<&Value>) -> Error {
    match encrypted_data {
        None | Some(Value::Null) => Error::EnvelopeMissing {
            field: "encrypted_data",
        },
        Some(_) => Error::EnvelopeType {
            field: "encrypted_data".into(),
            expected: "a base64 string",
        },
    }
}

/// An envelope's fields, and its data (borrowed where it can be).
type Fields<'a> = (Raw, Option<Cow<'a, [u8]>>);

/// The JSON of a possible envelope: `Ok(None)` when it is not JSON and does not look like a
/// cut-off envelope either.
fn read(bytes: &[u8]) -> Result<Option<Fields<'_>>, Error> {
    if let Some(fields) = read_split(bytes) {
        return Ok(Some(fields));
    }
    let (raw, data) = match serde_json::from_slice::<Fast<'_>>(bytes) {
        Ok(fast) => {
            let (raw, data) = fast.without_data();
            (raw, data.map(|text| Cow::Borrowed(text.as_bytes())))
        }
        Err(_) => match serde_json::from_slice::<Raw>(bytes) {
            Ok(mut raw) => {
                let data = match raw.encrypted_data.take() {
                    Some(Value::String(text)) => Some(Cow::Owned(text.into_bytes())),
                    other => {
                        raw.encrypted_data = other;
                        None
                    }
                };
                (raw, data)
            }
            Err(_) if !looks_cut_envelope(bytes) => return Ok(None),
            Err(_) => return Err(not_json(bytes)),
        },
    };
    Ok(Some((raw, data)))
}

/// The envelope read without running the JSON parser over its data: the top-level
/// `encrypted_data` string is found with a vectorised scan for its closing quote (base64 holds no
/// quote and no backslash), and only the rest, a few hundred bytes with the data spliced out, is
/// parsed. `None` whenever that is not certain (escapes in the data, the key not at the top
/// level, anything the parser refuses): the general path then decides, errors included.
fn read_split(bytes: &[u8]) -> Option<Fields<'_>> {
    let (raw, range) = split(bytes)?;
    // Not checked as UTF-8 here: the base64 decoder refuses any byte outside its alphabet.
    Some((raw, Some(Cow::Borrowed(&bytes[range]))))
}

/// The fields of an envelope whose data is a plain string, and where the data lies.
fn split(bytes: &[u8]) -> Option<(Raw, std::ops::Range<usize>)> {
    const KEY: &[u8] = b"\"encrypted_data\"";
    // OpenTofu writes the data after `meta`, so the first top-level occurrence is near the top;
    // an alias named `encrypted_data` inside `meta` fails the depth check and takes the general
    // path.
    let key_at = memchr::memmem::find(bytes, KEY)?;
    if !at_top_level_key(&bytes[..key_at]) {
        return None;
    }
    let skip_space = |mut i: usize| {
        while bytes
            .get(i)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            i += 1;
        }
        i
    };
    let mut at = skip_space(key_at + KEY.len());
    if bytes.get(at) != Some(&b':') {
        return None;
    }
    at = skip_space(at + 1);
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let start = at + 1;
    let end = start + memchr::memchr2(b'"', b'\\', &bytes[start..])?;
    if bytes[end] != b'"' {
        return None;
    }
    // The rest, with the data as an empty string: small, and parsed by the ordinary rules.
    let mut rest = Vec::with_capacity(bytes.len() - (end - start));
    rest.extend_from_slice(&bytes[..start]);
    rest.extend_from_slice(&bytes[end..]);
    let fast = serde_json::from_slice::<Fast<'_>>(&rest).ok()?;
    let (raw, data) = fast.without_data();
    (data == Some("")).then_some((raw, start..end))
}

/// Whether `prefix`, the JSON before a key, leaves the reader inside the top-level object and
/// outside any string: the key found next is one of the envelope's own.
fn at_top_level_key(prefix: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in prefix {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth == 1 && !in_string
}

/// A file that starts like an envelope (its keys near the top, no state's `terraform_version`)
/// but does not parse was cut off or damaged: say so rather than call it "not a state".
fn looks_cut_envelope(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(HEAD)];
    // The cheap tests first: a plaintext state is never parsed here. Both keys start `"encrypt`,
    // so one search over the head finds either.
    let envelope_key = memchr::memmem::find_iter(head, b"\"encrypt").any(|at| {
        let after = &head[at + b"\"encrypt".len()..];
        after.starts_with(b"ed_data\"") || after.starts_with(b"ion_version\"")
    });
    envelope_key
        && memchr::memmem::find(head, b"\"terraform_version\"").is_none()
        && serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_err()
}

fn not_json(bytes: &[u8]) -> Error {
    match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
        Err(e) => Error::EnvelopeNotJson {
            line: e.line(),
            column: e.column(),
            detail: if e.classify() == serde_json::error::Category::Eof {
                "the JSON ends early".to_owned()
            } else {
                let text = e.to_string();
                text.split(" at line ").next().unwrap_or(&text).to_owned()
            },
        },
        Ok(_) => Error::EnvelopeType {
            field: "envelope".into(),
            expected: "a JSON object",
        },
    }
}

/// `encrypted_data` decoded into a buffer of its own (huge pages for a large state: see
/// [`Bytes::zeroed`]); Go's lenient cases, and every error, as [`decode`] has them.
fn decode_data(text: &[u8]) -> Result<Bytes, Error> {
    if let Ok(length) = base64_simd::STANDARD.decoded_length(text) {
        let mut data = Bytes::zeroed(length);
        if let Ok(decoded) =
            base64_simd::STANDARD.decode(text, base64_simd::Out::from_slice(&mut data))
        {
            let decoded = decoded.len();
            data.truncate(decoded);
            return Ok(data);
        }
    }
    decode("encrypted_data", text).map(Bytes::from)
}

fn decode(field: &str, text: &[u8]) -> Result<Vec<u8>, Error> {
    decode_base64(text).map_err(|e| Error::BadBase64 {
        field: field.to_owned(),
        detail: match e {
            base64::DecodeError::InvalidByte(at, byte) => {
                format!("byte {:?} at offset {at}", char::from(byte))
            }
            base64::DecodeError::InvalidLength(len) => {
                format!("{len} characters is not a whole number of base64 groups")
            }
            base64::DecodeError::InvalidLastSymbol { offset, .. } => {
                format!("bad last symbol at offset {offset}")
            }
            base64::DecodeError::InvalidPadding => "bad padding".to_owned(),
        },
    })
}

/// The state envelope OpenTofu writes: compact JSON, keys `serial`, `lineage`, `meta`
/// (sorted, base64 values), `encrypted_data`, `encryption_version`, no trailing newline.
/// `serial` is `null` and `lineage` empty when the plaintext state had none, as Go writes them.
pub fn write(
    serial: Option<i64>,
    lineage: &str,
    meta: &BTreeMap<String, Vec<u8>>,
    encrypted_data: &[u8],
) -> Vec<u8> {
    // Sized once for the base64 of the data and of every metadata value: the tens of megabytes
    // are never moved by a growing string.
    let meta_len: usize = meta
        .iter()
        .map(|(key, value)| key.len() * 6 + base64_len(value.len()) + 8)
        .sum();
    let mut out = String::with_capacity(
        base64_len(encrypted_data.len()) + meta_len + lineage.len() * 6 + 128,
    );
    out.push_str("{\"serial\":");
    match serial {
        Some(n) => out.push_str(&n.to_string()),
        None => out.push_str("null"),
    }
    out.push_str(",\"lineage\":");
    push_string(&mut out, lineage);
    out.push_str(",\"meta\":");
    let members = meta.iter().map(|(key, value)| (key.as_str(), value));
    push_object(&mut out, members, |out, value| {
        out.push('"');
        encode_base64(value, out);
        out.push('"');
    });
    out.push_str(",\"encrypted_data\":\"");
    encode_base64(encrypted_data, &mut out);
    out.push_str("\",\"encryption_version\":\"");
    out.push_str(ENCRYPTION_VERSION);
    out.push_str("\"}");
    out.into_bytes()
}

/// The length of the envelope [`write_in_place`] makes of `lead_len + data_len` bytes of the
/// method's output: what to reserve before the data is made, so that the buffer grows once.
pub(crate) fn in_place_len(
    serial: Option<i64>,
    lineage: &str,
    meta: &BTreeMap<String, Vec<u8>>,
    lead_len: usize,
    data_len: usize,
) -> usize {
    write(serial, lineage, meta, &[]).len() + base64_len(lead_len) + base64_len(data_len)
}

/// [`write`] of `lead || data`, made in `data`'s own buffer: it grows to the envelope's length,
/// `data` is turned into base64 there back to front, and the text around it is written last. A
/// 50 MB state is sealed and stored without a second buffer of its size. `lead` (the nonce) is
/// a whole number of base64 groups, so its text simply precedes the data's.
pub(crate) fn write_in_place(
    serial: Option<i64>,
    lineage: &str,
    meta: &BTreeMap<String, Vec<u8>>,
    lead: &[u8],
    mut data: Vec<u8>,
) -> Vec<u8> {
    assert_eq!(lead.len() % 3, 0, "the lead's base64 must have no padding");
    let around = write(serial, lineage, meta, &[]);
    let head = around.len() - TAIL.len();
    debug_assert_eq!(&around[head..], TAIL.as_bytes());
    let mut lead_text = String::with_capacity(base64_len(lead.len()));
    encode_base64(lead, &mut lead_text);
    let text_at = head + lead_text.len();
    let raw_len = data.len();
    let text_end = text_at + base64_len(raw_len);
    data.resize(text_end + TAIL.len(), 0);
    encode_back_to_front(&mut data, raw_len, text_at);
    data[..head].copy_from_slice(&around[..head]);
    data[head..text_at].copy_from_slice(lead_text.as_bytes());
    data[text_end..].copy_from_slice(TAIL.as_bytes());
    data
}

/// Turns the `raw_len` bytes at the start of `buf` into their base64 at `text_at`, in place. The
/// text is longer than the bytes and starts no earlier, so chunks are encoded from the last to
/// the first: each one's text lands past every byte not yet encoded. A chunk whose own text
/// would overlap it is encoded from a copy.
fn encode_back_to_front(buf: &mut [u8], raw_len: usize, text_at: usize) {
    let mut scratch = Vec::new();
    for index in (0..raw_len.div_ceil(CHUNK)).rev() {
        let start = index * CHUNK;
        let end = (start + CHUNK).min(raw_len);
        let at = text_at + start / 3 * 4;
        let text_len = base64_len(end - start);
        if at >= end {
            let (before, after) = buf.split_at_mut(at);
            let text = base64_simd::Out::from_slice(&mut after[..text_len]);
            let _ = base64_simd::STANDARD.encode(&before[start..end], text);
        } else {
            scratch.clear();
            scratch.extend_from_slice(&buf[start..end]);
            let text = base64_simd::Out::from_slice(&mut buf[at..at + text_len]);
            let _ = base64_simd::STANDARD.encode(&scratch, text);
        }
    }
}

/// The length of the base64 (with padding) of `n` bytes.
fn base64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// How much raw data one base64 pass takes (a multiple of 3: no padding until the last).
const CHUNK: usize = 3 * 16 * 1024;

/// What follows the data in every envelope `write` makes.
const TAIL: &str = "\",\"encryption_version\":\"v0\"}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_mentioning_the_marker_keys_is_not_an_envelope() {
        // An attribute named like the envelope's keys, deep in a resource: still a state.
        let state = br#"{"version":4,"terraform_version":"1.9.0","serial":1,"lineage":"l","outputs":{},
            "resources":[{"instances":[{"attributes":{"encryption_version":"v0","encrypted_data":"x"}}]}]}"#;
        assert_eq!(parse(state).unwrap(), None);
        // A damaged state that mentions them is left to the state parser's own error.
        assert_eq!(parse(&state[..60]).unwrap(), None);
        assert_eq!(parse(b"").unwrap(), None);
        assert_eq!(parse(b"not json").unwrap(), None);
    }

    /// The marker searches against searching each end whole, as they were first written: the
    /// marker at every place around the ends of the head and of the tail, in files shorter than a
    /// head, between one and two, and longer.
    #[test]
    fn the_marker_is_found_near_either_end_as_by_searching_both_ends_whole() {
        const MARKER: &[u8] = b"\"encryption_version\"";
        let naive_near = |bytes: &[u8]| {
            let near = |part: &[u8]| memchr::memmem::find(part, MARKER).is_some();
            near(&bytes[..bytes.len().min(HEAD)])
                || near(&bytes[bytes.len().saturating_sub(HEAD)..])
        };
        let naive_cut = |bytes: &[u8]| {
            let head = &bytes[..bytes.len().min(HEAD)];
            (memchr::memmem::find(head, b"\"encrypted_data\"").is_some()
                || memchr::memmem::find(head, MARKER).is_some())
                && memchr::memmem::find(head, b"\"terraform_version\"").is_none()
                && serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_err()
        };
        let mut checked = [0, 0];
        for length in [40, HEAD - 7, HEAD, HEAD + 13, 2 * HEAD - 5, 2 * HEAD + 77] {
            let mut places: Vec<usize> = vec![0, length / 2, length - MARKER.len()];
            for edge in [HEAD, length.saturating_sub(HEAD)] {
                places.extend(edge.saturating_sub(MARKER.len() + 2)..edge + 3);
            }
            for key in [
                MARKER,
                b"\"encrypted_data\"",
                b"\"encrypted\"",
                b"\"encryption_versio\"",
            ] {
                for &at in places.iter().filter(|&&at| at + key.len() <= length) {
                    // Not JSON around the key, so only the keys decide `looks_cut_envelope`.
                    let mut bytes = vec![b'x'; length];
                    bytes[at..at + key.len()].copy_from_slice(key);
                    assert_eq!(marker_near(&bytes), naive_near(&bytes), "{length} {at}");
                    assert_eq!(
                        looks_cut_envelope(&bytes),
                        naive_cut(&bytes),
                        "{length} {at}"
                    );
                    checked[usize::from(naive_near(&bytes))] += 1;
                }
            }
        }
        // Both answers were met, many times.
        assert!(checked[0] > 100 && checked[1] > 50, "{checked:?}");
    }

    /// A plan's envelope: no serial or lineage, one key provider, three bytes of data.
    fn plan_envelope() -> Envelope {
        parse(br#"{"meta":{"k":"e30="},"encrypted_data":"AAAA","encryption_version":"v0"}"#)
            .unwrap()
            .unwrap()
    }

    #[test]
    fn plan_envelopes_and_alpha_states_have_no_serial_or_lineage() {
        let env = plan_envelope();
        assert_eq!((env.serial, env.lineage), (None, None));
        assert_eq!(env.meta["k"], b"{}");
        assert_eq!(&env.encrypted_data[..], [0, 0, 0]);
    }

    #[test]
    fn escaped_data_takes_the_general_path() {
        // `\/` is a legal JSON spelling of `/` that Go never writes; the data cannot be borrowed.
        let env = parse(br#"{"meta":{},"encrypted_data":"AA\/A","encryption_version":"v0"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(&env.encrypted_data[..], [0, 15, 192]);
        let err =
            parse(br#"{"meta":{},"encrypted_data":5,"encryption_version":"v0"}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the encrypted state's encrypted_data is not a base64 string"
        );
    }

    #[test]
    fn the_split_and_in_place_paths_agree_with_the_general_parse() {
        let cases: [&[u8]; 6] = [
            // As OpenTofu writes it.
            br#"{"serial":1,"lineage":"l","meta":{"k":"e30="},"encrypted_data":"AAEC","encryption_version":"v0"}"#,
            // The data first, spaces around the colon.
            br#"{ "encrypted_data" : "AAEC", "meta": {}, "encryption_version": "v0" }"#,
            // A metadata alias named like the data key: found first, but not at the top level.
            br#"{"meta":{"encrypted_data":"e30="},"encrypted_data":"AAEC","encryption_version":"v0"}"#,
            // The key's text inside a string value.
            br#"{"lineage":"\"encrypted_data\":\"x","meta":{},"encrypted_data":"AAEC","encryption_version":"v0"}"#,
            // Go's lenient base64 (non-zero trailing bits): the copying path takes it.
            br#"{"meta":{},"encrypted_data":"AAF=","encryption_version":"v0"}"#,
            // Escaped data.
            br#"{"meta":{},"encrypted_data":"AA\/A","encryption_version":"v0"}"#,
        ];
        for case in cases {
            let general = parse(case).unwrap().unwrap();
            let owned = parse_owned(case.to_vec()).unwrap().unwrap();
            assert_eq!(general, owned, "{}", String::from_utf8_lossy(case));
            let (raw, _) = read(case).unwrap().unwrap();
            assert!(raw.meta.is_some());
        }
        // A state, and an object whose encryption_version is empty, come back untouched.
        for plain in [
            &br#"{"version":4,"serial":1,"lineage":"l","resources":[]}"#[..],
            br#"{"meta":{},"encrypted_data":"AAEC","encryption_version":""}"#,
        ] {
            assert_eq!(parse_owned(plain.to_vec()).unwrap().unwrap_err(), plain);
        }
        // Bad base64 gets the same error either way.
        let bad = br#"{"meta":{},"encrypted_data":"AA*C","encryption_version":"v0"}"#;
        assert_eq!(
            parse(bad).unwrap_err().to_string(),
            parse_owned(bad.to_vec()).unwrap_err().to_string()
        );
    }

    #[test]
    fn data_decoded_alongside_is_the_data_and_bad_data_still_fails() {
        let mut meta = BTreeMap::new();
        meta.insert("key_provider.pbkdf2.k".to_owned(), b"{\"salt\":1}".to_vec());
        // Either side of the size from which the data is decoded on a thread of its own.
        for len in [10, DECODE_ALONGSIDE_FROM / 4 * 3 + 7] {
            let data: Vec<u8> = (0..len).map(|i| (i * 13 + i / 7) as u8).collect();
            let bytes = write(Some(2), "l", &meta, &data);
            let (envelope, seen) =
                parse_alongside(&bytes, |meta| meta.keys().cloned().collect::<Vec<_>>())
                    .unwrap()
                    .unwrap();
            assert_eq!(seen, ["key_provider.pbkdf2.k"]);
            assert_eq!(&envelope.encrypted_data[..], &data[..], "length {len}");
            assert_eq!(Some(envelope), parse_owned(bytes.clone()).unwrap().ok());
            // A byte outside base64 in the data fails the parse, though `meanwhile` ran.
            let mut bad = bytes.clone();
            let at = bad.len() - TAIL.len() - 3;
            bad[at] = b'*';
            let mut ran = false;
            let error = parse_alongside(&bad, |_| ran = true).unwrap_err();
            assert!(matches!(error, Error::BadBase64 { .. }), "{error}");
            assert!(ran, "length {len}");
            let mut ran = false;
            let error = parse_owned_alongside(Bytes::from(bad), |_| ran = true).unwrap_err();
            assert!(matches!(error, Error::BadBase64 { .. }), "{error}");
            assert!(ran, "length {len}");
        }
        // Not an envelope: `meanwhile` never runs.
        let plain = br#"{"version":4,"serial":1,"lineage":"l","resources":[]}"#;
        assert!(
            parse_alongside(plain, |_| panic!("not an envelope"))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn the_in_place_writer_writes_what_write_writes() {
        let mut meta = BTreeMap::new();
        meta.insert("key_provider.pbkdf2.k".to_owned(), b"{\"salt\":1}".to_vec());
        // Sizes around the chunk edges and the chunks encoded from a copy, and every padding.
        for len in [
            0, 1, 2, 3, 4, 100, 49_151, 49_152, 49_153, 147_455, 147_456, 147_457, 200_003,
            1_000_001,
        ] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
            for lead in [&b""[..], b"nonce-twelve"] {
                let expected = write(Some(3), "l<", &meta, &[lead, &data[..]].concat());
                let reserved = in_place_len(Some(3), "l<", &meta, lead.len(), len);
                let mut buffer = Vec::with_capacity(reserved);
                buffer.extend_from_slice(&data);
                let got = write_in_place(Some(3), "l<", &meta, lead, buffer);
                assert!(got == expected, "length {len}, lead {}", lead.len());
                assert_eq!(got.len(), reserved, "length {len}");
            }
        }
    }

    #[test]
    fn writes_null_serial_and_escapes_as_go() {
        let out = write(None, "a<b", &BTreeMap::new(), b"\x00");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"serial":null,"lineage":"a\u003cb","meta":{},"encrypted_data":"AA==","encryption_version":"v0"}"#
        );
    }

    #[test]
    fn debug_shows_sizes_not_data() {
        let env = plan_envelope();
        assert_eq!(
            format!("{env:?}"),
            r#"Envelope { serial: None, lineage: None, meta: ["k"], encrypted_data: 3 bytes }"#
        );
    }
}
