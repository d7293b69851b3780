//! The TOML files statectl reads (the rules file, the policy file): a parse error becomes one line
//! naming the file, the line and column, and what is wrong.

use std::path::Path;

use statectl_state::json::LineColumn;

/// `path:line:column: invalid <what>: <message>`, for a TOML error in `text`, the file's content
/// (the line and column left out when toml knows no place).
pub(crate) fn invalid(path: &Path, text: &str, what: &str, error: &toml::de::Error) -> String {
    let place = error
        .span()
        .map(|span| format!(":{}", LineColumn::of(text.as_bytes(), span.start)))
        .unwrap_or_default();
    format!(
        "{}{place}: invalid {what}: {}",
        path.display(),
        error.message().trim()
    )
}
