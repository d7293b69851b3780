//! Provider configuration addresses as states write them, checked rather than trusted.
//!
//! Terraform up to 1.16 silently drops a resource whose provider address does not parse, which loses
//! it from state on the next write; statectl refuses such a file instead.

use std::fmt;

/// A parsed `provider` value: `provider["registry.terraform.io/hashicorp/aws"].west`, with an optional
/// `module.x.` prefix, OpenTofu's instance key (`.by_region["us-east-1"]`), or the 0.12-era legacy form
/// `provider.aws`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderConfig {
    /// The value as written.
    pub text: String,
    /// The provider source (`registry.terraform.io/hashicorp/aws`), or the bare type for legacy strings.
    pub source: String,
    pub alias: Option<String>,
    /// The 0.12-era `provider.TYPE` form.
    pub legacy: bool,
}

/// Why a provider address does not parse; the caller quotes the address and names where it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderAddressError {
    #[error("a module name must follow `module.`")]
    ModuleName,
    #[error("expected `.` after a module step")]
    ModuleDot,
    #[error("expected `provider[\"SOURCE\"]`")]
    Provider,
    #[error("unterminated provider source")]
    UnterminatedSource,
    #[error("expected a provider type after `provider.`")]
    LegacyType,
    #[error("expected an alias after `.`")]
    Alias,
    /// What follows a complete address, escaped.
    #[error("unexpected `{0}` at the end")]
    Trailing(String),
    #[error("expected `]` after a key")]
    KeyEnd,
    #[error("unterminated key string")]
    UnterminatedKey,
    #[error("expected a number or a string in `[...]`")]
    Key,
    #[error("provider source `{0}` has too many parts")]
    SourceParts(String),
    #[error("`{0}` is not a valid provider registry hostname")]
    Hostname(String),
    /// The namespace or type, escaped.
    #[error("`{0}` is not a valid provider namespace or type")]
    Name(String),
}

impl ProviderConfig {
    /// Parses a provider address, returning what is wrong when it does not parse.
    pub fn parse(text: &str) -> Result<ProviderConfig, ProviderAddressError> {
        // Terraform reads these as HCL traversals, where whitespace between tokens is allowed
        // (`provider. null` appears in a real 0.12 state).
        let compacted = without_whitespace_outside_quotes(text);
        let mut rest = compacted.as_str();
        // An optional module prefix: `module.NAME[KEY].` repeated.
        while let Some(after) = rest.strip_prefix("module.") {
            let name_length = identifier_length(after);
            if name_length == 0 {
                return Err(ProviderAddressError::ModuleName);
            }
            let mut after = &after[name_length..];
            if after.starts_with('[') {
                after = skip_key(after)?;
            }
            rest = after
                .strip_prefix('.')
                .ok_or(ProviderAddressError::ModuleDot)?;
        }
        let rest = rest
            .strip_prefix("provider")
            .ok_or(ProviderAddressError::Provider)?;
        let (source, legacy, mut rest) = if let Some(quoted) = rest.strip_prefix("[\"") {
            let end = quoted
                .find("\"]")
                .ok_or(ProviderAddressError::UnterminatedSource)?;
            let source = &quoted[..end];
            check_source(source)?;
            (source.to_owned(), false, &quoted[end + 2..])
        } else if let Some(legacy) = rest.strip_prefix('.') {
            let length = identifier_length(legacy);
            if length == 0 {
                return Err(ProviderAddressError::LegacyType);
            }
            (legacy[..length].to_owned(), true, &legacy[length..])
        } else {
            return Err(ProviderAddressError::Provider);
        };
        let mut alias = None;
        if let Some(after) = rest.strip_prefix('.') {
            let length = identifier_length(after);
            if length == 0 {
                return Err(ProviderAddressError::Alias);
            }
            alias = Some(after[..length].to_owned());
            rest = &after[length..];
            if rest.starts_with('[') {
                rest = skip_key(rest)?;
            }
        }
        if !rest.is_empty() {
            return Err(ProviderAddressError::Trailing(
                rest.escape_debug().to_string(),
            ));
        }
        Ok(ProviderConfig {
            text: text.to_owned(),
            source,
            alias,
            legacy,
        })
    }

    /// A short name for grouping: the source plus the alias, if any.
    pub fn name(&self) -> String {
        match &self.alias {
            Some(alias) => format!("{}.{alias}", self.source),
            None => self.source.clone(),
        }
    }
}

impl fmt::Display for ProviderConfig {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.text)
    }
}

fn without_whitespace_outside_quotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut quoted, mut escaped) = (false, false);
    for character in text.chars() {
        match character {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            space if space.is_whitespace() && !quoted => continue,
            _ => {}
        }
        out.push(character);
    }
    out
}

fn identifier_length(text: &str) -> usize {
    let mut characters = text.char_indices();
    match characters.next() {
        Some((_, first)) if first.is_alphabetic() || first == '_' => {}
        _ => return 0,
    }
    characters
        .find(|(_, character)| !(character.is_alphanumeric() || matches!(character, '_' | '-')))
        .map_or(text.len(), |(at, _)| at)
}

/// What follows the closing quote of the string whose content (after its `"`) starts `quoted`;
/// `None` when the string is never closed. `\\` escapes the next character.
pub(crate) fn after_quoted(quoted: &str) -> Option<&str> {
    let mut escaped = false;
    for (at, character) in quoted.char_indices() {
        match character {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(&quoted[at + 1..]),
            _ => {}
        }
    }
    None
}

/// Skips an instance key `[0]` or `["text"]` and returns what follows it.
fn skip_key(text: &str) -> Result<&str, ProviderAddressError> {
    let inner = &text[1..];
    if let Some(quoted) = inner.strip_prefix('"') {
        return after_quoted(quoted)
            .ok_or(ProviderAddressError::UnterminatedKey)?
            .strip_prefix(']')
            .ok_or(ProviderAddressError::KeyEnd);
    }
    let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(ProviderAddressError::Key);
    }
    inner[digits..]
        .strip_prefix(']')
        .ok_or(ProviderAddressError::KeyEnd)
}

/// Checks `[HOSTNAME/]NAMESPACE/TYPE` (a bare TYPE is the legacy form).
fn check_source(source: &str) -> Result<(), ProviderAddressError> {
    let parts: Vec<&str> = source.split('/').collect();
    if parts.len() > 3 {
        return Err(ProviderAddressError::SourceParts(source.to_owned()));
    }
    let (hostname, names) = if parts.len() == 3 {
        (Some(parts[0]), &parts[1..])
    } else {
        (None, &parts[..])
    };
    if let Some(hostname) = hostname {
        let valid = !hostname.is_empty()
            && hostname.chars().all(|character| {
                character.is_alphanumeric() || matches!(character, '.' | '-' | ':')
            });
        if !valid {
            return Err(ProviderAddressError::Hostname(hostname.to_owned()));
        }
    }
    for name in names {
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|character| character.is_alphanumeric() || matches!(character, '-' | '_'));
        if !valid {
            return Err(ProviderAddressError::Name(name.escape_debug().to_string()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::ProviderConfig;

    #[test]
    fn parses_every_form_states_use() {
        let plain =
            ProviderConfig::parse(r#"provider["registry.terraform.io/hashicorp/aws"]"#).unwrap();
        assert_eq!(
            (plain.source.as_str(), plain.alias, plain.legacy),
            ("registry.terraform.io/hashicorp/aws", None, false)
        );
        let aliased =
            ProviderConfig::parse(r#"module.a.provider["registry.terraform.io/-/null"].west"#)
                .unwrap();
        assert_eq!(aliased.name(), "registry.terraform.io/-/null.west");
        let keyed = ProviderConfig::parse(
            r#"provider["registry.opentofu.org/hashicorp/aws"].by_region["eu-west-1"]"#,
        )
        .unwrap();
        assert_eq!(keyed.alias.as_deref(), Some("by_region"));
        let spaced = ProviderConfig::parse("provider. null").unwrap();
        assert_eq!(
            (spaced.source.as_str(), spaced.legacy, spaced.text.as_str()),
            ("null", true, "provider. null")
        );
        let legacy = ProviderConfig::parse("module.x.provider.null.foo").unwrap();
        assert_eq!((legacy.source.as_str(), legacy.legacy), ("null", true));
    }

    #[test]
    fn refuses_what_terraform_would_drop() {
        for bad in [
            "this is an invalid value for this field",
            "provider[\"a b\"]",
            "provider",
            "provider[\"x\"].",
            "provider[\"a/b/c/d\"]",
        ] {
            assert!(ProviderConfig::parse(bad).is_err(), "{bad}");
        }
    }
}
