//! Reading one `.tf` file in the native syntax, through hcl-edit for its spans.

use std::fmt;
use std::ops::Range;
use std::path::Path;

use hcl::edit::Span;
use hcl::edit::expr::{Expression, TraversalOperator};
use hcl::edit::structure::{Block, BlockLabel, Body};
use statectl_state::state::address::Mode;

use super::arguments::{Lifecycle, managed_only, not_literal, string_bool};
use super::{Call, Declarations, Place, RemovedBlock};
use crate::ConfigError;

/// One `.tf` file in the native syntax.
pub(super) struct Native<'a> {
    file: &'a Path,
    text: &'a str,
    /// Byte offsets at which lines start, so that placing each of thousands of blocks in a generated
    /// file does not rescan the text before it.
    line_starts: Vec<usize>,
}

impl<'a> Native<'a> {
    pub(super) fn new(file: &'a Path, text: &'a str) -> Native<'a> {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(newline, _)| newline + 1))
            .collect();
        Native {
            file,
            text,
            line_starts,
        }
    }

    /// The blocks of `body`, this file's parse.
    pub(super) fn read(
        &self,
        body: &Body,
        module: &[String],
        found: &mut Declarations,
    ) -> Result<(), ConfigError> {
        for block in body.blocks() {
            let place = self.place(block.span());
            match block.ident.as_str() {
                kind @ ("resource" | "data") => {
                    let [type_name, name] = self.labels(
                        block,
                        &format!("a `{kind}` block needs two labels, the type and the name"),
                    )?;
                    let mode = if kind == "data" {
                        Mode::Data
                    } else {
                        Mode::Managed
                    };
                    let lifecycle = self.lifecycle(&block.body, mode == Mode::Data)?;
                    let resource = lifecycle.resource(module, mode, type_name, name, &place);
                    found.resources.push((resource, place));
                }
                "module" => {
                    let [name] =
                        self.labels(block, "a `module` block needs one label, the call's name")?;
                    let Some(source) = block.body.get_attribute("source") else {
                        return Err(
                            self.error(block.span(), format!("module `{name}` has no `source`"))
                        );
                    };
                    let Some(text) = source.value.as_str() else {
                        return Err(self.error(
                            source.span(),
                            format!("the `source` of module `{name}` must be a literal string"),
                        ));
                    };
                    found.calls.push(Call {
                        name: name.to_owned(),
                        source: text.to_owned(),
                        place,
                    });
                }
                "removed" => {
                    let Some(from) = block.body.get_attribute("from") else {
                        return Err(self.error(block.span(), "a `removed` block needs `from`"));
                    };
                    let Some(address) = self.traversal(&from.value) else {
                        return Err(self.error(
                            from.span(),
                            "`from` must be an address such as `aws_instance.a` or `module.old`, without quotes",
                        ));
                    };
                    let lifecycle = self.lifecycle(&block.body, false)?;
                    found.removed.push(RemovedBlock {
                        module: module.to_vec(),
                        from: address,
                        destroy: lifecycle.destroy,
                        file: place.file,
                        line: place.line,
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn labels<'b, const N: usize>(
        &self,
        block: &'b Block,
        needs: &str,
    ) -> Result<[&'b str; N], ConfigError> {
        let labels: Vec<&str> = block.labels.iter().map(BlockLabel::as_str).collect();
        labels
            .try_into()
            .map_err(|_| self.error(block.span(), needs))
    }

    fn lifecycle(&self, body: &Body, data: bool) -> Result<Lifecycle, ConfigError> {
        let mut blocks = body.get_blocks("lifecycle");
        let mut lifecycle = Lifecycle::default();
        let Some(block) = blocks.next() else {
            return Ok(lifecycle);
        };
        if let Some(second) = blocks.next() {
            return Err(self.error(
                second.span(),
                format!(
                    "duplicate `lifecycle` block, the first is at {}",
                    self.place(block.span())
                ),
            ));
        }
        for attribute in block.body.attributes() {
            let argument = attribute.key.as_str();
            let Some(setting) = lifecycle.setting(argument) else {
                continue;
            };
            if data {
                return Err(self.error(attribute.span(), managed_only(argument)));
            }
            let Some(value) = literal_bool(&attribute.value) else {
                return Err(self.error(attribute.span(), not_literal(argument)));
            };
            *setting = Some(value);
        }
        Ok(lifecycle)
    }

    /// An address such as `module.old` or `aws_instance.a["k"]`, with the whitespace HCL allows
    /// around its dots left out and its index keys as written.
    fn traversal(&self, expression: &Expression) -> Option<String> {
        match expression {
            Expression::Variable(root) => Some(root.as_str().to_owned()),
            Expression::Traversal(traversal) => {
                let mut text = self.traversal(&traversal.expr)?;
                for operator in &traversal.operators {
                    match operator.value() {
                        TraversalOperator::GetAttr(name) => {
                            text.push('.');
                            text.push_str(name.as_str());
                        }
                        TraversalOperator::Index(key) => {
                            text.push('[');
                            text.push_str(self.text.get(key.span()?)?.trim());
                            text.push(']');
                        }
                        TraversalOperator::LegacyIndex(index) => {
                            text.push('.');
                            text.push_str(&index.value().to_string());
                        }
                        TraversalOperator::AttrSplat(_) => text.push_str(".*"),
                        TraversalOperator::FullSplat(_) => text.push_str("[*]"),
                    }
                }
                Some(text)
            }
            _ => None,
        }
    }

    fn place(&self, span: Option<Range<usize>>) -> Place {
        let offset = span.map(|span| span.start);
        let Some(offset) = offset.filter(|&offset| self.text.is_char_boundary(offset)) else {
            return Place {
                file: self.file.to_owned(),
                line: 0,
                column: 0,
            };
        };
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let line_start = self.line_starts[line - 1];
        Place {
            file: self.file.to_owned(),
            line,
            column: self.text[line_start..offset].chars().count() + 1,
        }
    }

    fn error(&self, span: Option<Range<usize>>, message: impl fmt::Display) -> ConfigError {
        ConfigError::new(format!("{}: {message}", self.place(span)))
    }
}

pub(super) fn literal_bool(expression: &Expression) -> Option<bool> {
    match expression {
        Expression::Bool(value) => Some(*value.value()),
        Expression::String(text) => string_bool(text.value()),
        Expression::Parenthesis(inner) => literal_bool(inner.inner()),
        _ => None,
    }
}
