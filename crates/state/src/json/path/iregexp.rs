//! `match()` and `search()` patterns: I-Regexp (RFC 9485), checked against its grammar and
//! translated into the `regex` crate's syntax (which matches in linear time, with a size limit on
//! what a pattern compiles to). A pattern that is not an I-Regexp makes the function false, as
//! RFC 9535 says. Compiled patterns are kept for the run, since a filter applies the same one to
//! every node.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::iter::Peekable;
use std::str::Chars;

use regex::{Regex, RegexBuilder};

use crate::json::path::budget::{Budget, Exceeded};

/// Patterns compiled per run at most; beyond that (patterns read from the document itself) each is
/// compiled when used.
const KEPT_PATTERNS: usize = 256;
/// The most memory one compiled pattern may take.
const PATTERN_BYTES: usize = 1 << 20;

#[derive(Debug, Default)]
pub(crate) struct RegexCache {
    whole: HashMap<String, Option<Regex>>,
    substring: HashMap<String, Option<Regex>>,
}

impl RegexCache {
    /// Whether `subject` matches the I-Regexp `pattern` (entirely when `whole`, else anywhere).
    pub(crate) fn is_match(
        &mut self,
        pattern: &str,
        subject: &str,
        whole: bool,
        budget: &mut Budget,
    ) -> Result<bool, Exceeded> {
        budget.visit(1)?;
        budget.scan(subject.len())?;
        let kept = if whole {
            &mut self.whole
        } else {
            &mut self.substring
        };
        if let Some(compiled) = kept.get(pattern) {
            return Ok(compiled
                .as_ref()
                .is_some_and(|regex| regex.is_match(subject)));
        }
        // Compiling is worth a visit per pattern byte, and more for what the pattern expands to.
        budget.visit(pattern.len().saturating_mul(16))?;
        let compiled = translate(pattern, whole).and_then(|translated| {
            RegexBuilder::new(&translated)
                .size_limit(PATTERN_BYTES)
                .dfa_size_limit(PATTERN_BYTES)
                .build()
                .ok()
        });
        let found = compiled
            .as_ref()
            .is_some_and(|regex| regex.is_match(subject));
        if kept.len() < KEPT_PATTERNS {
            kept.insert(pattern.to_owned(), compiled);
        }
        Ok(found)
    }
}

/// The `regex` crate's spelling of an I-Regexp, anchored at both ends when `whole`; `None` when
/// `pattern` is not an I-Regexp.
pub(crate) fn translate(pattern: &str, whole: bool) -> Option<String> {
    let mut out = String::with_capacity(pattern.len() * 2 + 8);
    out.push_str(if whole { r"\A(?:" } else { "(?:" });
    let mut chars = pattern.chars().peekable();
    let mut open_groups = 0usize;
    // Whether an atom just ended, so a quantifier may follow.
    let mut quantifiable = false;
    while let Some(character) = chars.next() {
        match character {
            '(' => {
                open_groups += 1;
                out.push_str("(?:");
                quantifiable = false;
            }
            ')' => {
                open_groups = open_groups.checked_sub(1)?;
                out.push(')');
                quantifiable = true;
            }
            '|' => {
                out.push('|');
                quantifiable = false;
            }
            '*' | '+' | '?' => {
                if !quantifiable {
                    return None;
                }
                out.push(character);
                quantifiable = false;
            }
            '{' => {
                if !quantifiable {
                    return None;
                }
                range_quantifier(&mut chars, &mut out)?;
                quantifiable = false;
            }
            // Any character but a line end (RFC 9485 section 5.3).
            '.' => {
                out.push_str(r"[^\n\r]");
                quantifiable = true;
            }
            '[' => {
                class(&mut chars, &mut out)?;
                quantifiable = true;
            }
            '\\' => {
                match escape(&mut chars)? {
                    Escaped::Character(character) => literal(character, &mut out),
                    Escaped::Category(category) => out.push_str(&category),
                }
                quantifiable = true;
            }
            ']' | '}' => return None,
            // Anchors, as the compliance suite (and every implementation it was drawn from) reads
            // them; RFC 9485's grammar would take them as characters.
            '^' | '$' => {
                out.push(character);
                quantifiable = false;
            }
            other => {
                literal(other, &mut out);
                quantifiable = true;
            }
        }
    }
    if open_groups != 0 {
        return None;
    }
    out.push_str(if whole { r")\z" } else { ")" });
    Some(out)
}

/// `{n}`, `{n,}` or `{n,m}` after its `{`.
fn range_quantifier(chars: &mut Peekable<Chars<'_>>, out: &mut String) -> Option<()> {
    out.push('{');
    let digits = |chars: &mut Peekable<Chars<'_>>, out: &mut String| {
        let mut any = false;
        while let Some(digit) = chars.next_if(char::is_ascii_digit) {
            out.push(digit);
            any = true;
        }
        any
    };
    if !digits(chars, out) {
        return None;
    }
    if chars.next_if_eq(&',').is_some() {
        out.push(',');
        digits(chars, out);
    }
    chars.next_if_eq(&'}')?;
    out.push('}');
    Some(())
}

enum Escaped {
    Character(char),
    /// `\p{..}` or `\P{..}`, already in the `regex` crate's spelling.
    Category(String),
}

/// What follows a backslash: a single-character escape or a Unicode category.
fn escape(chars: &mut Peekable<Chars<'_>>) -> Option<Escaped> {
    match chars.next()? {
        'n' => Some(Escaped::Character('\n')),
        'r' => Some(Escaped::Character('\r')),
        't' => Some(Escaped::Character('\t')),
        character @ ('(' | ')' | '*' | '+' | '-' | '.' | '?' | '[' | '\\' | ']' | '^' | '{'
        | '|' | '}') => Some(Escaped::Character(character)),
        negation @ ('p' | 'P') => {
            chars.next_if_eq(&'{')?;
            let mut name = String::new();
            while let Some(letter) = chars.next_if(char::is_ascii_alphabetic) {
                name.push(letter);
            }
            chars.next_if_eq(&'}')?;
            CATEGORIES
                .contains(&name.as_str())
                .then(|| Escaped::Category(format!("\\{negation}{{{name}}}")))
        }
        _ => None,
    }
}

/// The general categories an I-Regexp may name.
const CATEGORIES: &[&str] = &[
    "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl", "No", "P", "Pc",
    "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "Z", "Zl", "Zp", "Zs", "S", "Sc", "Sk", "Sm", "So", "C",
    "Cc", "Cf", "Cn", "Co",
];

/// A character class after its `[`: `[^a-z\p{Lu}-]`.
fn class(chars: &mut Peekable<Chars<'_>>, out: &mut String) -> Option<()> {
    out.push('[');
    if chars.next_if_eq(&'^').is_some() {
        out.push('^');
    }
    let mut items = 0usize;
    loop {
        let character = chars.next()?;
        match character {
            ']' if items > 0 => break,
            // A `-` stands for itself first and last; elsewhere only in a range.
            '-' if items == 0 || chars.peek() == Some(&']') => class_literal('-', out),
            '-' | '[' | ']' => return None,
            '\\' => match escape(chars)? {
                Escaped::Category(category) => out.push_str(&category),
                Escaped::Character(low) => class_range(low, chars, out)?,
            },
            low => class_range(low, chars, out)?,
        }
        items += 1;
    }
    out.push(']');
    Some(())
}

/// One class character, or a range from it when `-` and another character follow.
fn class_range(low: char, chars: &mut Peekable<Chars<'_>>, out: &mut String) -> Option<()> {
    let mut ahead = chars.clone();
    if ahead.next() == Some('-') && !matches!(ahead.peek(), Some(']') | None) {
        chars.next();
        let high = match chars.next()? {
            '\\' => match escape(chars)? {
                Escaped::Character(high) => high,
                Escaped::Category(_) => return None,
            },
            '-' | '[' | ']' => return None,
            high => high,
        };
        if high < low {
            return None;
        }
        class_literal(low, out);
        out.push('-');
        class_literal(high, out);
    } else {
        class_literal(low, out);
    }
    Some(())
}

fn class_literal(character: char, out: &mut String) {
    let _ = write!(out, "\\x{{{:X}}}", u32::from(character));
}

fn literal(character: char, out: &mut String) {
    let mut buffer = [0; 4];
    out.push_str(&regex::escape(character.encode_utf8(&mut buffer)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::path::budget::Limits;

    fn matches(pattern: &str, subject: &str, whole: bool) -> bool {
        let mut budget = Budget::new(Limits::for_document(0));
        RegexCache::default()
            .is_match(pattern, subject, whole, &mut budget)
            .unwrap()
    }

    #[test]
    fn matches_as_i_regexp_says() {
        assert!(matches("a.c", "abc", true));
        assert!(!matches("a.c", "a\nc", true));
        assert!(!matches("a.c", "a\rc", true));
        assert!(!matches("b", "abc", true));
        assert!(matches("b", "abc", false));
        assert!(!matches("a|b", "ab", true));
        assert!(matches("[a-c]{2,3}", "cab", true));
        assert!(matches("\\p{Lu}+", "ÉCOLE", true));
        assert!(matches("[^\\p{L}]", "1", true));
        assert!(matches("^ab.*", "abc", true));
        assert!(matches(".*bc$", "abc", true));
        assert!(!matches("^b", "ab", false));
        assert!(matches("c$", "abc", false));
        assert!(!matches("b$", "abc", false));
        assert!(matches("[-a]", "-", true));
        assert!(matches("[a-]", "-", true));
        assert!(matches("\\.", ".", true));
    }

    #[test]
    fn what_is_not_an_i_regexp_never_matches() {
        for pattern in [
            "(", ")", "a**", "a{", "a{,2}", "[", "[]", "[a", "\\d", "\\w", "a*?", "\\p{Xx}",
            "[z-a]", "]", "}", "*a", "(?i)a",
        ] {
            assert_eq!(translate(pattern, true), None, "{pattern}");
        }
        assert!(!matches("\\d", "1", false));
    }
}
