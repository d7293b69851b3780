//! The one palette statectl paints with: every colored piece of output (diff lines, table headings,
//! severities, the `error:`/`warning:`/`hint:` labels) names its meaning here, so a color means the
//! same thing in every command and no other file writes an ANSI code.

/// What a piece of colored text means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// A heading or a diff's file names: bold.
    Strong,
    /// Something added: green.
    Added,
    /// Something removed, or an error-level finding: red.
    Removed,
    /// Something changed, or a warning-level finding: yellow.
    Changed,
    /// A hunk header or a note-level finding: cyan.
    Info,
    /// A null value, as Terraform shows it: dark grey.
    Faint,
    /// The `error` label: bold red.
    ErrorLabel,
    /// The `warning` label: bold yellow.
    WarningLabel,
    /// The `hint` label: bold cyan.
    HintLabel,
}

/// Ends every painted piece.
pub(crate) const RESET: &str = "\x1b[0m";

impl Style {
    /// The escape sequence that starts this style.
    pub(crate) fn code(self) -> &'static str {
        match self {
            Style::Strong => "\x1b[1m",
            Style::Added => "\x1b[32m",
            Style::Removed => "\x1b[31m",
            Style::Changed => "\x1b[33m",
            Style::Info => "\x1b[36m",
            Style::Faint => "\x1b[90m",
            Style::ErrorLabel => "\x1b[1;31m",
            Style::WarningLabel => "\x1b[1;33m",
            Style::HintLabel => "\x1b[1;36m",
        }
    }
}

/// `text` in `style` when `color` is on, else `text` as it is.
pub(crate) fn paint(style: Style, text: &str, color: bool) -> String {
    if color {
        format!("{}{text}{RESET}", style.code())
    } else {
        text.to_owned()
    }
}

/// [`paint`], appended to `out`.
pub(crate) fn paint_into(out: &mut String, style: Style, text: &str, color: bool) {
    if color {
        out.push_str(style.code());
        out.push_str(text);
        out.push_str(RESET);
    } else {
        out.push_str(text);
    }
}

#[cfg(test)]
mod tests {
    use super::{Style, paint};

    #[test]
    fn painted_text_is_wrapped_in_its_code_and_a_reset_only_with_color() {
        assert_eq!(paint(Style::Added, "+x", true), "\x1b[32m+x\x1b[0m");
        assert_eq!(paint(Style::Added, "+x", false), "+x");
    }
}
