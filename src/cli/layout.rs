//! Text for people laid out in columns: cells padded, never split, so an address, a path or a rule id
//! is always copied whole; on a terminal, prose (a finding's message) wrapped at spaces to the
//! terminal's width; in a pipe or a CI log, no width limit at all.

/// Columns wider than this do not push the next column right: a very long address would otherwise
/// push every row's next cell off the screen.
const WIDEST_PADDED: usize = 60;

/// The terminal's width when stdout is a terminal; `None` (no limit) in a pipe or a file.
pub(crate) fn terminal_width() -> Option<usize> {
    let probe = comfy_table::Table::new();
    if probe.is_tty() {
        probe.width().map(usize::from)
    } else {
        None
    }
}

/// `rows` as lines of columns two spaces apart, each line after `indent`: every column but the last
/// padded to its widest cell (see [`widths`]), no cell ever cut or wrapped. `paint` colors a cell
/// after it is measured (column, text).
pub(crate) fn columns(
    rows: &[Vec<String>],
    indent: &str,
    paint: &dyn Fn(usize, &str) -> String,
) -> String {
    let widths = widths(rows);
    rows.iter()
        .map(|row| line(row, &widths, indent, paint))
        .collect()
}

/// The width of each column of `rows`: its widest cell, among those up to [`WIDEST_PADDED`].
pub(crate) fn widths(rows: &[Vec<String>]) -> Vec<usize> {
    let count = rows.iter().map(Vec::len).max().unwrap_or(0);
    (0..count)
        .map(|column| {
            rows.iter()
                .filter_map(|row| row.get(column))
                .map(|cell| cell.chars().count())
                .filter(|&width| width <= WIDEST_PADDED)
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// One row of [`columns`], padded to `widths`, ending in a line break.
pub(crate) fn line(
    row: &[String],
    widths: &[usize],
    indent: &str,
    paint: &dyn Fn(usize, &str) -> String,
) -> String {
    let mut line = String::from(indent);
    for (column, cell) in row.iter().enumerate() {
        line.push_str(&paint(column, cell));
        if column + 1 < row.len() {
            let width = widths.get(column).copied().unwrap_or(0);
            let pad = width.saturating_sub(cell.chars().count()) + 2;
            line.extend(std::iter::repeat_n(' ', pad));
        }
    }
    let mut line = line.trim_end().to_owned();
    line.push('\n');
    line
}

/// `text` as lines after `indent` spaces: on a terminal (`width`), wrapped at spaces so no line
/// passes the width, a word longer than a line kept whole on a line of its own; otherwise one line.
pub(crate) fn wrap(text: &str, indent: usize, width: Option<usize>) -> String {
    let margin = " ".repeat(indent);
    let Some(width) = width.filter(|width| width.saturating_sub(indent) >= 20) else {
        return format!("{margin}{text}\n");
    };
    let room = width - indent;
    let mut out = String::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split(' ').filter(|word| !word.is_empty()) {
        let length = word.chars().count();
        if used > 0 && used + 1 + length > room {
            out.push_str(&margin);
            out.push_str(&line);
            out.push('\n');
            line.clear();
            used = 0;
        }
        if used > 0 {
            line.push(' ');
            used += 1;
        }
        line.push_str(word);
        used += length;
    }
    if used > 0 || out.is_empty() {
        out.push_str(&margin);
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_pad_but_never_cut() {
        let rows = vec![
            vec!["warning".to_owned(), "tainted".to_owned(), "a.b".to_owned()],
            vec![
                "error".to_owned(),
                "tainted-after-timeout".to_owned(),
                "module.talos.proxmox_virtual_environment_vm.this[\"ctrl-01\"]".to_owned(),
            ],
        ];
        let text = columns(&rows, "  ", &|_, cell| cell.to_owned());
        assert_eq!(
            text,
            "  warning  tainted                a.b\n  error    tainted-after-timeout  module.talos.proxmox_virtual_environment_vm.this[\"ctrl-01\"]\n"
        );
    }

    #[test]
    fn wraps_prose_at_spaces_on_a_terminal_only() {
        let text = "the remote object was still being created when Terraform saved the state";
        assert_eq!(wrap(text, 4, None), format!("    {text}\n"));
        assert_eq!(
            wrap(text, 4, Some(34)),
            "    the remote object was still\n    being created when Terraform\n    saved the state\n"
        );
        let long = format!("see {}", "x".repeat(50));
        assert_eq!(
            wrap(&long, 2, Some(30)),
            format!("  see\n  {}\n", "x".repeat(50))
        );
    }
}
