//! The traversal an address is written as: a root name followed by `.name`
//! and `[key]` steps, as HCL's `parseTraversal` produces it (without splats,
//! which Terraform's `ParseTargetStr` does not allow), plus the
//! `(deposed object KEY)` suffix that may follow a state object's address.
//! What the steps mean is left to `parse`.

use super::AddressError;
use super::lexer::{Lexer, Tok};

pub(super) enum StepKind {
    Name(String),
    /// The literal's text and where it starts, for errors about its value.
    Number(String, usize),
    Str(String),
}

pub(super) struct Step {
    pub(super) kind: StepKind,
    pub(super) at: usize,
}

impl Step {
    pub(super) fn describe(&self) -> String {
        match &self.kind {
            StepKind::Name(name) => format!("name {name:?}"),
            StepKind::Number(text, _) => format!("index [{text}]"),
            StepKind::Str(_) => "a string index".to_string(),
        }
    }

    pub(super) fn name(&self) -> Option<&str> {
        match &self.kind {
            StepKind::Name(name) => Some(name),
            _ => None,
        }
    }
}

pub(super) struct Traversal {
    pub(super) steps: Vec<Step>,
    /// The deposed key, if the caller allowed a deposed suffix and there
    /// was one.
    pub(super) deposed: Option<String>,
}

pub(super) fn parse_traversal(src: &str, allow_deposed: bool) -> Result<Traversal, AddressError> {
    let mut lexer = Lexer::new(src);
    let first = lexer.next()?;
    let root = match first.tok {
        Tok::Ident(name) => name,
        Tok::End => return Err(AddressError::new("the address is empty", first.at)),
        other => {
            return Err(AddressError::new(
                format!(
                    "an address must start with a name, found {}",
                    other.describe()
                ),
                first.at,
            ));
        }
    };
    let mut steps = vec![Step {
        kind: StepKind::Name(root),
        at: first.at,
    }];
    let mut deposed = None;
    loop {
        let token = lexer.next()?;
        match token.tok {
            Tok::End => break,
            Tok::Dot => {
                let name = lexer.next()?;
                match name.tok {
                    Tok::Ident(name) => steps.push(Step {
                        kind: StepKind::Name(name),
                        at: token.at,
                    }),
                    Tok::Other('*') => {
                        return Err(AddressError::new(
                            "the wildcard \".*\" is not allowed in an address",
                            name.at,
                        ));
                    }
                    other => {
                        return Err(AddressError::new(
                            format!("expected a name after \".\", found {}", other.describe()),
                            name.at,
                        ));
                    }
                }
            }
            Tok::OpenBracket => steps.push(Step {
                kind: index_key(&mut lexer)?,
                at: token.at,
            }),
            Tok::Other('(') if allow_deposed => {
                deposed = Some(deposed_suffix(src, token.at, true)?);
                break;
            }
            Tok::Ident(ref word) if allow_deposed && word == "deposed" => {
                deposed = Some(deposed_suffix(src, token.at, false)?);
                break;
            }
            other => {
                return Err(AddressError::new(
                    format!(
                        "expected \".\", \"[\" or the end of the address, found {}",
                        other.describe()
                    ),
                    token.at,
                ));
            }
        }
    }
    Ok(Traversal { steps, deposed })
}

/// The key of an index step and its closing `]`, the `[` already read.
fn index_key(lexer: &mut Lexer<'_>) -> Result<StepKind, AddressError> {
    let key = lexer.next()?;
    let kind = match key.tok {
        Tok::Number(text) => StepKind::Number(text, key.at),
        Tok::Quoted(s) => StepKind::Str(s),
        Tok::Other('*') => {
            return Err(AddressError::new(
                "the wildcard \"[*]\" is not allowed in an address",
                key.at,
            ));
        }
        Tok::Other('-') => {
            return Err(AddressError::new("an index cannot be negative", key.at));
        }
        other => {
            return Err(AddressError::new(
                format!(
                    "an index must be a whole number or a quoted string, found {}",
                    other.describe()
                ),
                key.at,
            ));
        }
    };
    let close = lexer.next()?;
    if close.tok != Tok::CloseBracket {
        return Err(AddressError::new(
            format!(
                "expected \"]\" to close the index, found {}",
                close.tok.describe()
            ),
            close.at,
        ));
    }
    Ok(kind)
}

/// Reads `(deposed object KEY)` (or the unparenthesised form) starting at
/// `at` through to the end of the input.
fn deposed_suffix(src: &str, at: usize, parenthesized: bool) -> Result<String, AddressError> {
    fn blank(c: char) -> bool {
        matches!(c, ' ' | '\t' | '\n' | '\r')
    }
    let expected = || {
        AddressError::new(
            "expected \"(deposed object KEY)\" after the instance address",
            at,
        )
    };
    let mut rest = &src[at..];
    if parenthesized {
        rest = rest[1..].trim_start_matches(blank);
    }
    rest = rest.strip_prefix("deposed").ok_or_else(expected)?;
    let trimmed = rest.trim_start_matches(blank);
    if trimmed.len() == rest.len() {
        return Err(expected());
    }
    rest = trimmed.strip_prefix("object").ok_or_else(expected)?;
    let trimmed = rest.trim_start_matches(blank);
    if trimmed.len() == rest.len() {
        return Err(expected());
    }
    let key_at = src.len() - trimmed.len();
    let key_len = trimmed
        .find(|c: char| blank(c) || c == ')')
        .unwrap_or(trimmed.len());
    let key = &trimmed[..key_len];
    // Terraform generates deposed keys as eight lowercase hex digits and its
    // `ParseDeposedKey` accepts nothing else.
    if key.len() != 8 || !key.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(AddressError::new(
            format!("a deposed key is eight lowercase hexadecimal digits, found {key:?}"),
            key_at,
        ));
    }
    rest = trimmed[key_len..].trim_start_matches(blank);
    if parenthesized {
        rest = rest
            .strip_prefix(')')
            .ok_or_else(|| {
                AddressError::new(
                    "expected \")\" after the deposed key",
                    src.len() - rest.len(),
                )
            })?
            .trim_start_matches(blank);
    }
    if !rest.is_empty() {
        return Err(AddressError::new(
            "unexpected text after the deposed object key",
            src.len() - rest.len(),
        ));
    }
    Ok(key.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::ObjectAddr;

    #[test]
    fn rejects_bad_deposed_suffixes() {
        let cases: &[(&str, &str, usize)] = &[
            (
                "aws_x.y (deposed object 1234)",
                "a deposed key is eight lowercase hexadecimal digits, found \"1234\"",
                24,
            ),
            (
                "aws_x.y (deposed object DEADBEEF)",
                "a deposed key is eight lowercase hexadecimal digits, found \"DEADBEEF\"",
                24,
            ),
            (
                "aws_x.y (deposed object 0123abcd",
                "expected \")\" after the deposed key",
                32,
            ),
            (
                "aws_x.y (deposed object 0123abcd) x",
                "unexpected text after the deposed object key",
                34,
            ),
            (
                "aws_x.y (deposed 0123abcd)",
                "expected \"(deposed object KEY)\" after the instance address",
                8,
            ),
            (
                "aws_x.y (deposedobject 0123abcd)",
                "expected \"(deposed object KEY)\" after the instance address",
                8,
            ),
            (
                "aws_x.y (tainted)",
                "expected \"(deposed object KEY)\" after the instance address",
                8,
            ),
        ];
        for (input, message, offset) in cases {
            let e = ObjectAddr::parse(input).unwrap_err();
            assert_eq!(
                (e.message.as_str(), e.offset),
                (*message, *offset),
                "{input:?}"
            );
        }
    }
}
