//! A deposed object's key as the model holds it: the eight hexadecimal digits Terraform makes
//! (`states.NewDeposedKey`), kept inline in the instance record instead of as a string (a large
//! state holds hundreds of thousands of records, and a `Cow<str>` took 24 bytes of each).

use std::fmt;
use std::ops::Deref;

/// Eight ASCII hexadecimal digits, as the file spells them (either case: Terraform reads both).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeposedKey([u8; 8]);

impl DeposedKey {
    /// The key `text` spells, when it is eight hexadecimal digits.
    pub fn parse(text: &str) -> Option<DeposedKey> {
        let bytes: [u8; 8] = text.as_bytes().try_into().ok()?;
        bytes
            .iter()
            .all(u8::is_ascii_hexdigit)
            .then_some(DeposedKey(bytes))
    }

    pub fn as_str(&self) -> &str {
        // Only ASCII digits and letters are ever held (see `parse`); the fallback cannot be reached.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl Deref for DeposedKey {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for DeposedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for DeposedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for DeposedKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_eight_hexadecimal_digits_as_written() {
        let key = DeposedKey::parse("0a1B2c3D").unwrap();
        assert_eq!(key.as_str(), "0a1B2c3D");
        assert_eq!(&*key, "0a1B2c3D");
        assert_eq!(key.to_string(), "0a1B2c3D");
        assert_eq!(format!("{key:?}"), "\"0a1B2c3D\"");
        assert_eq!(serde_json::to_string(&key).unwrap(), "\"0a1B2c3D\"");
    }

    #[test]
    fn refuses_anything_else() {
        for text in [
            "",
            "0a1b2c3",
            "0a1b2c3d4",
            "0a1b2c3g",
            "0a1b2c3\u{e9}",
            "0a1b 2c3",
        ] {
            assert_eq!(DeposedKey::parse(text), None, "{text:?}");
        }
    }

    #[test]
    fn sorts_as_its_text() {
        let mut keys = ["ffffffff", "00000001", "0000000a", "0000000A"]
            .map(|text| DeposedKey::parse(text).unwrap());
        keys.sort();
        let mut texts = ["ffffffff", "00000001", "0000000a", "0000000A"];
        texts.sort_unstable();
        assert_eq!(keys.map(|key| key.to_string()), texts.map(str::to_owned));
    }
}
