//! Instance keys (`[0]`, `["k"]`): the value, the order Terraform sorts them
//! in, and printing them exactly as Terraform does, including its quoting of
//! string keys.

use std::fmt::{self, Write as _};

use super::unicode::is_go_printable;

/// The key that picks one instance out of a `count` (`Int`) or `for_each`
/// (`Str`) block.
///
/// The derived order is Terraform's `InstanceKeyLess`: integers before
/// strings, integers numerically, strings byte-wise (Go's `<` on strings).
/// Where a key may be absent, `Option<InstanceKey>` puts `None` first, which is
/// also what Terraform does with `NoKey`.
///
/// Negative integers can be held and printed but never parsed: HCL has no
/// negative number literals in traversals.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceKey {
    Int(i64),
    Str(String),
}

impl fmt::Display for InstanceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceKey::Int(i) => write!(f, "[{i}]"),
            InstanceKey::Str(s) => {
                f.write_char('[')?;
                write_hcl_quoted(f, s)?;
                f.write_char(']')
            }
        }
    }
}

/// Writes `key` after a module or resource name, nothing when there is none (`module.a`,
/// `aws_x.y[0]`).
pub(super) fn write_optional(f: &mut fmt::Formatter<'_>, key: Option<&InstanceKey>) -> fmt::Result {
    match key {
        Some(key) => write!(f, "{key}"),
        None => Ok(()),
    }
}

/// Writes `s` as an HCL quoted string the way Terraform's `toHCLQuotedString`
/// does, so that our output is byte-identical to `terraform state list` and
/// still parses back as a literal (no accidental template sequences).
fn write_hcl_quoted(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_char('"')?;
    // Most keys are plain printable ASCII with nothing to escape: written in one piece.
    if s.bytes()
        .all(|byte| matches!(byte, b' '..=b'~') && !matches!(byte, b'"' | b'\\' | b'$' | b'%'))
    {
        f.write_str(s)?;
        return f.write_char('"');
    }
    for (i, c) in s.char_indices() {
        match c {
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '$' | '%' => {
                f.write_char(c)?;
                // Only an introducer directly before `{` would start a
                // template sequence, so only that one is doubled.
                if s[i + 1..].starts_with('{') {
                    f.write_char(c)?;
                }
            }
            c if !is_go_printable(c) => {
                let n = u32::from(c);
                if n < 0x10000 {
                    write!(f, "\\u{n:04x}")?;
                } else {
                    write!(f, "\\U{n:08x}")?;
                }
            }
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_round_trip_instance, instance, res, step, str_key};
    use super::super::{InstanceAddr, Mode, ModulePath};
    use super::InstanceKey;

    /// Keys built directly and printed; the expected text follows
    /// instance_key.go `toHCLQuotedString`.
    #[test]
    fn prints_string_keys_like_terraform() {
        let cases: &[(&str, &str)] = &[
            ("", r#"[""]"#),
            ("a\"b", r#"["a\"b"]"#),
            ("back\\slash", r#"["back\\slash"]"#),
            ("line\nbreak", r#"["line\nbreak"]"#),
            ("cr\r", r#"["cr\r"]"#),
            ("tab\there", r#"["tab\there"]"#),
            ("é", r#"["é"]"#),
            ("日本", r#"["日本"]"#),
            ("🚀", r#"["🚀"]"#),
            ("<>&", r#"["<>&"]"#),
            ("${x}", r#"["$${x}"]"#),
            ("%{x}", r#"["%%{x}"]"#),
            ("$x %y $ % {}", r#"["$x %y $ % {}"]"#),
            ("$${", r#"["$$${"]"#),
            ("\u{0}\u{1}\u{7f}", r#"["\u0000\u0001\u007f"]"#),
            // Latin-1 NBSP and soft hyphen are not printable for Go.
            ("\u{a0}\u{ad}", r#"["\u00a0\u00ad"]"#),
            ("zero\u{200b}width", r#"["zero\u200bwidth"]"#),
            ("\u{2028}\u{3000}\u{e000}", r#"["\u2028\u3000\ue000"]"#),
            ("\u{e0001}\u{10ffff}", r#"["\U000e0001\U0010ffff"]"#),
            // U+1FAE8 is in Unicode 15.0, U+1FAE9 only in 16.0, which Go's
            // tables (15.1.0) do not have yet, so Terraform escapes it.
            ("\u{1fae8}\u{1fae9}", r#"["🫨\U0001fae9"]"#),
        ];
        for (key, printed) in cases {
            let k = InstanceKey::Str(key.to_string());
            assert_eq!(k.to_string(), *printed, "printing {key:?}");
            let addr = InstanceAddr {
                resource: res(ModulePath::root(), Mode::Managed, "aws_x", "y"),
                key: Some(k),
            };
            assert_eq!(instance(&addr.to_string()), addr, "reparsing {printed}");
        }
        assert_eq!(InstanceKey::Int(0).to_string(), "[0]");
        assert_eq!(InstanceKey::Int(-1).to_string(), "[-1]");
    }

    #[test]
    fn round_trips_tricky_keys_in_modules_and_resources() {
        for s in [
            r#"aws_x.y["a\"b"]"#,
            r#"aws_x.y["back\\slash"]"#,
            r#"aws_x.y["line\nbreak"]"#,
            r#"aws_x.y["tab\there"]"#,
            r#"aws_x.y["é 日本 🚀"]"#,
            r#"aws_x.y["<>&"]"#,
            r#"aws_x.y["$${"]"#,
            r#"aws_x.y["%%{"]"#,
            r#"aws_x.y[""]"#,
            r#"module.m["\"\\\n\t$${%%{é"].aws_x.y["]."]"#,
        ] {
            assert_round_trip_instance(s);
        }
        assert_eq!(instance(r#"aws_x.y["$${x}"]"#).key, Some(str_key("${x}")));
        assert_eq!(instance(r#"aws_x.y["%%{x}"]"#).key, Some(str_key("%{x}")));
    }

    /// Round trip over many generated keys: whatever we print must parse
    /// back to the same key, and must stay on one line.
    #[test]
    fn printed_keys_always_parse_back() {
        let alphabet: Vec<char> =
            "a\"\\\n\r\t$%{}é日🚀\u{0}\u{7f}\u{a0}\u{200b}\u{e0001}\u{fffe} <>&[].#/*(),"
                .chars()
                .collect();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..3000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 60) as usize;
            let mut key = String::new();
            for i in 0..len {
                let pick = (seed >> (i * 6 % 54)) as usize % alphabet.len();
                key.push(alphabet[pick]);
            }
            let addr = InstanceAddr {
                resource: res(
                    ModulePath(vec![step("m", Some(str_key(&key)))].into()),
                    Mode::Data,
                    "t",
                    "n",
                ),
                key: Some(str_key(&key)),
            };
            let printed = addr.to_string();
            assert!(!printed.contains(['\n', '\r']), "{printed:?}");
            assert_eq!(instance(&printed), addr, "{printed}");
        }
    }
}
