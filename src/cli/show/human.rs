//! An instance's attributes laid out as `terraform state show` lays them out (Terraform's
//! `jsonformat` renderer for an unchanged object): attributes sorted, `=` aligned, null attributes
//! left out, nested blocks as `name { ... }`, lists, sets and maps by their type, strings quoted as Go
//! quotes them, a multi-line string as a `<<-EOT` heredoc, a string holding JSON as `jsonencode(...)`,
//! sensitive values as `(sensitive value)`, four spaces a level.
//!
//! Where Terraform prints raw text (a heredoc's lines), control characters other than tab are
//! escaped here, so a state cannot drive the terminal.

use serde_json::{Map, Value};
use statectl_reconcile::reconcile::plugin::value::{
    Attribute, AttributeKind, Block, NestedAttributes, Nesting, Type,
};

use crate::cli::style::{RESET, Style, paint_into};
use crate::state::go_text::{attribute_name, is_go_printable, quote};
use crate::state::sensitive::{CtyStep, MASK};

use super::number::cty_text;
use super::schema::unwrap_dynamic;

/// Renders values, knowing the sensitive paths and where in the instance it is.
pub(super) struct Render<'s> {
    sensitive: &'s [Vec<CtyStep>],
    path: Vec<CtyStep>,
    /// Show `null` in dark gray, as Terraform does unless `-no-color`.
    color: bool,
}

/// What a missing tuple element or member reads as.
static NULL: Value = Value::Null;

/// A rendered map element, and whether Terraform follows it with a comma (objects only).
struct Entry {
    key: String,
    text: String,
    comma: bool,
}

impl<'s> Render<'s> {
    /// `sensitive`: the instance's `sensitive_attributes` paths (empty to reveal everything).
    pub(super) fn new(sensitive: &'s [Vec<CtyStep>], color: bool) -> Render<'s> {
        Render {
            sensitive,
            path: Vec::new(),
            color,
        }
    }

    /// The resource's body, `{ ... }`, after `resource "TYPE" "NAME" `.
    pub(super) fn resource(&mut self, block: &Block, attributes: &Value, out: &mut String) {
        self.block(block, attributes, false, 0, out);
    }

    fn is_sensitive(&self) -> bool {
        self.sensitive.iter().any(|path| {
            path.len() == self.path.len()
                && path.iter().zip(&self.path).all(|pair| match pair {
                    (
                        CtyStep::Attribute(one) | CtyStep::Key(one),
                        CtyStep::Attribute(other) | CtyStep::Key(other),
                    ) => one == other,
                    (CtyStep::Index(one), CtyStep::Index(other)) => one == other,
                    _ => false,
                })
        })
    }

    /// Renders `render` one step further down, at `step`.
    /// The attributes of `attributes` that are set (not null) in `members`, each rendered one level
    /// in from `indent`: (its name, its text), in schema order. Terraform leaves nulls out.
    fn present_attributes<'a>(
        &mut self,
        attributes: &'a [Attribute],
        members: &Map<String, Value>,
        non_legacy: bool,
        indent: usize,
    ) -> Vec<(&'a str, String)> {
        let mut present = Vec::new();
        for attribute in attributes {
            let member = members.get(&attribute.name).unwrap_or(&Value::Null);
            if member.is_null() {
                continue;
            }
            let mut text = String::new();
            self.at(CtyStep::Attribute(attribute.name.clone()), |render| {
                render.attribute(attribute, member, non_legacy, indent + 1, &mut text);
            });
            present.push((attribute.name.as_str(), text));
        }
        present
    }

    fn at<T>(&mut self, step: CtyStep, render: impl FnOnce(&mut Self) -> T) -> T {
        self.path.push(step);
        let rendered = render(self);
        self.path.pop();
        rendered
    }

    /// A block: its attributes (null ones left out), then its nested blocks, each kind after a blank
    /// line. `non_legacy` says the schema around it has features the legacy SDK could not have
    /// (Terraform then keeps an empty string as itself instead of showing it as null).
    fn block(
        &mut self,
        block: &Block,
        value: &Value,
        non_legacy: bool,
        indent: usize,
        out: &mut String,
    ) {
        if self.is_sensitive() {
            sensitive_block(indent, out);
            return;
        }
        let non_legacy = non_legacy || has_non_legacy_features(block);
        let empty = Map::new();
        let members = value.as_object().unwrap_or(&empty);
        let mut attributes =
            self.present_attributes(&block.attributes, members, non_legacy, indent);
        let mut groups = Vec::new();
        for nested in &block.blocks {
            let member = members.get(&nested.name).unwrap_or(&Value::Null);
            if member.is_null() {
                continue;
            }
            let elements = self.at(CtyStep::Attribute(nested.name.clone()), |render| {
                render.nested_blocks(&nested.block, nested.nesting, member, non_legacy, indent)
            });
            groups.push((nested.name.as_str(), elements));
        }
        if attributes.is_empty() && groups.is_empty() {
            out.push_str("{}");
            return;
        }
        out.push_str("{\n");
        push_attribute_lines(&mut attributes, indent, out);
        groups.sort_by(|one, other| one.0.cmp(other.0));
        for (name, elements) in groups {
            for (at, (label, text)) in elements.iter().enumerate() {
                if at == 0 && !attributes.is_empty() {
                    out.push('\n');
                }
                push_indent(indent + 1, out);
                out.push_str(&attribute_name(name));
                out.push_str(label);
                out.push(' ');
                out.push_str(text);
                out.push('\n');
            }
        }
        push_indent(indent, out);
        out.push('}');
    }

    /// The blocks of one nested block type, each with its label (` "KEY"` for a map of blocks).
    fn nested_blocks(
        &mut self,
        block: &Block,
        nesting: Nesting,
        value: &Value,
        non_legacy: bool,
        indent: usize,
    ) -> Vec<(String, String)> {
        // Sensitive as a whole: every block of the kind says so instead of showing its contents.
        let all_sensitive = self.is_sensitive();
        let one = |render: &mut Self, element: &Value, non_legacy: bool| {
            let mut text = String::new();
            if all_sensitive {
                sensitive_block(indent + 1, &mut text);
            } else {
                render.block(block, element, non_legacy, indent + 1, &mut text);
            }
            text
        };
        match nesting {
            Nesting::Single | Nesting::Group => vec![(String::new(), one(self, value, non_legacy))],
            // Elements of a list or set lose the enclosing schema's non-legacy mark in Terraform's
            // renderer; a block's own features set it again.
            Nesting::List | Nesting::Set => elements(value)
                .iter()
                .enumerate()
                .map(|(index, element)| {
                    let text = self.at(CtyStep::Index(index as u64), |render| {
                        one(render, element, false)
                    });
                    (String::new(), text)
                })
                .collect(),
            Nesting::Map => sorted_members(value)
                .into_iter()
                .map(|(key, element)| {
                    let text = self.at(CtyStep::Key(key.clone()), |render| {
                        one(render, element, non_legacy)
                    });
                    (format!(" {}", quote(key)), text)
                })
                .collect(),
        }
    }

    fn attribute(
        &mut self,
        attribute: &Attribute,
        value: &Value,
        non_legacy: bool,
        indent: usize,
        out: &mut String,
    ) {
        match &attribute.kind {
            AttributeKind::Typed(ty) => self.typed(ty, value, non_legacy, indent, out),
            AttributeKind::Nested(nested) => {
                self.nested_attributes(nested, nested.nesting, value, indent, out);
            }
        }
    }

    /// A value of a known type.
    fn typed(
        &mut self,
        ty: &Type,
        value: &Value,
        non_legacy: bool,
        indent: usize,
        out: &mut String,
    ) {
        // The legacy SDK cannot tell an empty string from null, so Terraform shows it as null.
        let shown = if !non_legacy && value.as_str() == Some("") {
            &Value::Null
        } else {
            value
        };
        if self.is_sensitive() {
            out.push_str(MASK);
            return;
        }
        match ty {
            Type::Dynamic => self.json(unwrap_dynamic(value).unwrap_or(value), true, indent, out),
            Type::String | Type::Number | Type::Bool => self.json(shown, true, indent, out),
            Type::Object(types) => {
                let empty = Map::new();
                let members = value.as_object().unwrap_or(&empty);
                let mut entries = Vec::new();
                for (name, ty) in types {
                    let member = members.get(name).unwrap_or(&Value::Null);
                    if member.is_null() {
                        continue;
                    }
                    let mut text = String::new();
                    self.at(CtyStep::Attribute(name.clone()), |render| {
                        render.typed(ty, member, non_legacy, indent + 1, &mut text);
                    });
                    entries.push((name.clone(), text));
                }
                object(entries, indent, out);
            }
            Type::Map(element) => {
                let mut entries = Vec::new();
                for (key, member) in sorted_members(value) {
                    let mut text = String::new();
                    let comma = self.at(CtyStep::Key(key.clone()), |render| {
                        render.typed(element, member, non_legacy, indent + 1, &mut text);
                        matches!(**element, Type::Object(_)) && !render.is_sensitive()
                    });
                    entries.push(Entry {
                        key: key.clone(),
                        text,
                        comma,
                    });
                }
                map(&entries, true, indent, out);
            }
            Type::List(element) | Type::Set(element) => {
                let texts = self.indexed(elements(value).iter(), |render, member, out| {
                    render.typed(element, member, false, indent + 1, out);
                });
                list(&texts, indent, out);
            }
            Type::Tuple(types) => {
                let members = elements(value);
                let typed_members = types
                    .iter()
                    .enumerate()
                    .map(|(at, ty)| (ty, members.get(at).unwrap_or(&NULL)));
                let texts = self.indexed(typed_members, |render, (ty, member), out| {
                    render.typed(ty, member, false, indent + 1, out);
                });
                list(&texts, indent, out);
            }
        }
    }

    /// Renders each item one index step down.
    fn indexed<T>(
        &mut self,
        items: impl Iterator<Item = T>,
        mut render: impl FnMut(&mut Self, T, &mut String),
    ) -> Vec<String> {
        items
            .enumerate()
            .map(|(index, item)| {
                let mut text = String::new();
                self.at(CtyStep::Index(index as u64), |this| {
                    render(this, item, &mut text);
                });
                text
            })
            .collect()
    }

    /// Nested attributes (a protocol 6 schema) at `nesting`: an object, or lists, sets or maps of
    /// objects (each member an object, one level in).
    fn nested_attributes(
        &mut self,
        nested: &NestedAttributes,
        nesting: Nesting,
        value: &Value,
        indent: usize,
        out: &mut String,
    ) {
        if self.is_sensitive() {
            out.push_str(MASK);
            return;
        }
        match nesting {
            Nesting::Single | Nesting::Group => {
                let empty = Map::new();
                let members = value.as_object().unwrap_or(&empty);
                let entries = self
                    .present_attributes(&nested.attributes, members, true, indent)
                    .into_iter()
                    .map(|(name, text)| (name.to_owned(), text))
                    .collect();
                object(entries, indent, out);
            }
            Nesting::List | Nesting::Set => {
                let texts = self.indexed(elements(value).iter(), |render, member, out| {
                    render.nested_attributes(nested, Nesting::Single, member, indent + 1, out);
                });
                list(&texts, indent, out);
            }
            Nesting::Map => {
                let mut entries = Vec::new();
                for (key, member) in sorted_members(value) {
                    let mut text = String::new();
                    let comma = self.at(CtyStep::Key(key.clone()), |render| {
                        render.nested_attributes(
                            nested,
                            Nesting::Single,
                            member,
                            indent + 1,
                            &mut text,
                        );
                        !render.is_sensitive()
                    });
                    entries.push(Entry {
                        key: key.clone(),
                        text,
                        comma,
                    });
                }
                map(&entries, false, indent, out);
            }
        }
    }

    /// A value laid out by its JSON type, as Terraform lays out a dynamic value (`cty`: numbers as
    /// cty writes them, sensitive paths honoured) or the JSON inside a string (numbers as written).
    fn json(&mut self, value: &Value, cty: bool, indent: usize, out: &mut String) {
        if cty && self.is_sensitive() {
            out.push_str(MASK);
            return;
        }
        match value {
            Value::Null if self.color => {
                paint_into(out, Style::Faint, "null", true);
                // Terraform's colorizer ends its whole output with one more reset.
                out.push_str(RESET);
            }
            Value::Null => out.push_str("null"),
            Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
            Value::Number(number) => {
                let literal = number.to_string();
                out.push_str(&if cty { cty_text(&literal) } else { literal });
            }
            Value::String(text) => self.string(text, indent, out),
            Value::Array(members) => {
                let texts = self.indexed(members.iter(), |render, member, out| {
                    render.json(member, cty, indent + 1, out);
                });
                list(&texts, indent, out);
            }
            Value::Object(members) => {
                let mut entries = Vec::new();
                for (key, member) in members {
                    let mut text = String::new();
                    self.at(CtyStep::Attribute(key.clone()), |render| {
                        render.json(member, cty, indent + 1, &mut text);
                    });
                    entries.push((key.clone(), text));
                }
                object(entries, indent, out);
            }
        }
    }

    /// A string: `jsonencode(...)` when it holds a JSON object or array, a heredoc when it has
    /// several lines, else quoted.
    fn string(&mut self, text: &str, indent: usize, out: &mut String) {
        if (text.starts_with('{') || text.starts_with('['))
            && let Ok(decoded) = crate::json::parse_value(text)
        {
            let mut inner = String::new();
            // The JSON inside is no cty value: no sensitive paths lead into it.
            let outer = std::mem::take(&mut self.path);
            let sensitive = std::mem::take(&mut self.sensitive);
            self.json(&decoded, false, indent + 1, &mut inner);
            (self.path, self.sensitive) = (outer, sensitive);
            if inner.contains('\n') {
                out.push_str("jsonencode(\n");
                push_indent(indent + 1, out);
                out.push_str(&inner);
                out.push('\n');
                push_indent(indent, out);
                out.push(')');
            } else {
                out.push_str("jsonencode(");
                out.push_str(&inner);
                out.push(')');
            }
        } else if text.contains('\n') {
            out.push_str("<<-EOT\n");
            #[allow(
                clippy::str_split_at_newline,
                reason = "`lines` would drop a CRLF's carriage return, which Terraform prints"
            )]
            for line in text.trim().split('\n') {
                push_indent(indent + 1, out);
                push_safe(line, out);
                out.push('\n');
            }
            push_indent(indent, out);
            out.push_str("EOT");
        } else {
            out.push_str(&quote(text));
        }
    }
}

/// Whether a block uses what the legacy SDK could not (Terraform's `containsNonLegacyFeatures`):
/// map or group blocks, nested attributes, dynamic, object or tuple types, collections of
/// collections of non-primitives.
fn has_non_legacy_features(block: &Block) -> bool {
    let primitive = |ty: &Type| matches!(ty, Type::String | Type::Number | Type::Bool);
    block
        .blocks
        .iter()
        .any(|nested| matches!(nested.nesting, Nesting::Map | Nesting::Group))
        || block
            .attributes
            .iter()
            .any(|attribute| match &attribute.kind {
                AttributeKind::Nested(_) => true,
                AttributeKind::Typed(ty) => {
                    ty.has_dynamic()
                        || matches!(ty, Type::Object(_) | Type::Tuple(_))
                        || match ty {
                            Type::List(element) | Type::Set(element) | Type::Map(element) => {
                                match &**element {
                                    Type::List(inner) | Type::Set(inner) | Type::Map(inner) => {
                                        !primitive(inner)
                                    }
                                    _ => false,
                                }
                            }
                            _ => false,
                        }
                }
            })
}

fn elements(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// An object's members sorted by key (Go's byte order).
fn sorted_members(value: &Value) -> Vec<(&String, &Value)> {
    let mut members: Vec<(&String, &Value)> = value
        .as_object()
        .map(|members| members.iter().collect())
        .unwrap_or_default();
    members.sort_by(|one, other| one.0.cmp(other.0));
    members
}

/// `{ name = value ... }` with names sorted and `=` aligned; `{}` when empty.
fn object(mut entries: Vec<(String, String)>, indent: usize, out: &mut String) {
    if entries.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push_str("{\n");
    push_attribute_lines(&mut entries, indent, out);
    push_indent(indent, out);
    out.push('}');
}

/// `name = value` lines one indent step in, sorted by name, the `=` aligned.
fn push_attribute_lines<N: AsRef<str> + Ord>(
    entries: &mut [(N, String)],
    indent: usize,
    out: &mut String,
) {
    entries.sort_by(|one, other| one.0.cmp(&other.0));
    let names: Vec<String> = entries
        .iter()
        .map(|(name, _)| attribute_name(name.as_ref()))
        .collect();
    let width = names.iter().map(String::len).max().unwrap_or(0);
    for (name, (_, text)) in names.iter().zip(entries.iter()) {
        push_indent(indent + 1, out);
        push_padded(name, width, out);
        out.push_str(" = ");
        out.push_str(text);
        out.push('\n');
    }
}

/// `{ "key" = value ... }`, keys always quoted, aligned when `align`; `{}` when empty.
fn map(entries: &[Entry], align: bool, indent: usize, out: &mut String) {
    if entries.is_empty() {
        out.push_str("{}");
        return;
    }
    let keys: Vec<String> = entries.iter().map(|entry| quote(&entry.key)).collect();
    let width = keys.iter().map(String::len).max().unwrap_or(0);
    out.push_str("{\n");
    for (key, entry) in keys.iter().zip(entries) {
        push_indent(indent + 1, out);
        if align {
            push_padded(key, width, out);
        } else {
            out.push_str(key);
        }
        out.push_str(" = ");
        out.push_str(&entry.text);
        if entry.comma {
            out.push(',');
        }
        out.push('\n');
    }
    push_indent(indent, out);
    out.push('}');
}

/// `[ value, ... ]`, one element a line; `[]` when empty.
fn list(texts: &[String], indent: usize, out: &mut String) {
    if texts.is_empty() {
        out.push_str("[]");
        return;
    }
    out.push_str("[\n");
    for text in texts {
        push_indent(indent + 1, out);
        out.push_str(text);
        out.push_str(",\n");
    }
    push_indent(indent, out);
    out.push(']');
}

/// What Terraform shows for a block with a sensitive value in it.
fn sensitive_block(indent: usize, out: &mut String) {
    out.push_str("{\n");
    push_indent(indent, out);
    out.push_str("  # At least one attribute in this block is (or was) sensitive,\n");
    push_indent(indent, out);
    out.push_str("  # so its contents will not be displayed.\n");
    push_indent(indent, out);
    out.push('}');
}

fn push_indent(indent: usize, out: &mut String) {
    for _ in 0..indent {
        out.push_str("    ");
    }
}

/// `name` padded with spaces to `width`, as Go's `%-*s` pads: the width is Terraform's byte count,
/// the padding counts characters.
fn push_padded(name: &str, width: usize, out: &mut String) {
    out.push_str(name);
    for _ in name.chars().count()..width {
        out.push(' ');
    }
}

/// A heredoc line: as written, but a control character other than tab (or the `\r` of a CRLF line
/// end) escaped as Go's `%q` would.
fn push_safe(line: &str, out: &mut String) {
    let (line, crlf) = match line.strip_suffix('\r') {
        Some(line) => (line, "\r"),
        None => (line, ""),
    };
    for character in line.chars() {
        if character == '\t' || is_go_printable(character) || !character.is_control() {
            out.push(character);
        } else {
            let quoted = quote(&character.to_string());
            out.push_str(&quoted[1..quoted.len() - 1]);
        }
    }
    out.push_str(crlf);
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use statectl_reconcile::reconcile::plugin::value::NestedBlock;

    use super::*;

    use crate::cli::show::schema::attribute;

    fn nested(name: &str, nesting: Nesting, block: Block) -> NestedBlock {
        NestedBlock {
            name: name.to_owned(),
            nesting,
            block,
            min_items: 0,
            max_items: 0,
        }
    }

    fn render(block: &Block, value: &Value, sensitive: &[Vec<CtyStep>]) -> String {
        let mut out = String::new();
        Render::new(sensitive, false).resource(block, value, &mut out);
        out
    }

    /// A legacy SDK schema: an empty string shows as null (not left out), nested list blocks
    /// follow the attributes after a blank line, map keys are always quoted.
    fn sdk_instance() -> Block {
        let disk = Block {
            attributes: vec![
                attribute("size", Type::Number),
                attribute("type", Type::String),
            ],
            blocks: Vec::new(),
        };
        Block {
            attributes: vec![
                attribute("id", Type::String),
                attribute("name", Type::String),
                attribute("description", Type::String),
                attribute("tags", Type::Map(Box::new(Type::String))),
                attribute("ports", Type::List(Box::new(Type::Number))),
                attribute("gone", Type::String),
            ],
            blocks: vec![nested("ebs", Nesting::List, disk)],
        }
    }

    fn sdk_value() -> Value {
        json!({"id": "i-1", "name": "web", "description": "", "tags": {"b": "2", "a": "1"},
               "ports": [80, 443], "gone": null,
               "ebs": [{"size": 8, "type": ""}, {"size": 16, "type": "gp3"}]})
    }

    #[test]
    fn lays_out_a_legacy_sdk_block_as_terraform_does() {
        let expected = r#"{
    description = null
    id          = "i-1"
    name        = "web"
    ports       = [
        80,
        443,
    ]
    tags        = {
        "a" = "1"
        "b" = "2"
    }

    ebs {
        size = 8
        type = null
    }
    ebs {
        size = 16
        type = "gp3"
    }
}"#;
        assert_eq!(render(&sdk_instance(), &sdk_value(), &[]), expected);
    }

    #[test]
    fn a_sensitive_block_and_sensitive_elements_are_hidden() {
        let paths = vec![
            vec![CtyStep::Attribute("ebs".into()), CtyStep::Index(0)],
            vec![CtyStep::Attribute("tags".into()), CtyStep::Key("a".into())],
            vec![CtyStep::Attribute("ports".into()), CtyStep::Index(1)],
        ];
        let shown = render(&sdk_instance(), &sdk_value(), &paths);
        assert!(
            shown.contains(
                "    ebs {\n      # At least one attribute in this block is (or was) sensitive,\n      # so its contents will not be displayed.\n    }\n    ebs {\n        size = 16\n"
            ),
            "{shown}"
        );
        assert!(shown.contains("\"a\" = (sensitive value)\n"), "{shown}");
        assert!(
            shown.contains("80,\n        (sensitive value),\n"),
            "{shown}"
        );
    }

    #[test]
    fn map_blocks_are_labelled_and_keep_empty_strings() {
        let block = Block {
            attributes: Vec::new(),
            blocks: vec![nested(
                "rule",
                Nesting::Map,
                Block {
                    attributes: vec![attribute("x", Type::String)],
                    blocks: Vec::new(),
                },
            )],
        };
        let value = json!({"rule": {"b": {"x": ""}, "a": {"x": "1"}}});
        assert_eq!(
            render(&block, &value, &[]),
            "{\n    rule \"a\" {\n        x = \"1\"\n    }\n    rule \"b\" {\n        x = \"\"\n    }\n}"
        );
        assert_eq!(render(&block, &json!({"rule": null}), &[]), "{}");
    }

    #[test]
    fn maps_of_objects_take_commas_and_objects_leave_nulls_out() {
        let block = Block {
            attributes: vec![attribute(
                "m",
                Type::Map(Box::new(Type::Object(
                    [("n".to_owned(), Type::String), ("z".to_owned(), Type::Bool)].into(),
                ))),
            )],
            blocks: Vec::new(),
        };
        let value = json!({"m": {"k": {"n": "x", "z": null}, "long key": {"n": null, "z": true}}});
        assert_eq!(
            render(&block, &value, &[]),
            "{\n    m = {\n        \"k\"        = {\n            n = \"x\"\n        },\n        \"long key\" = {\n            z = true\n        },\n    }\n}"
        );
    }

    #[test]
    fn heredoc_lines_escape_control_characters_but_a_crlf() {
        let block = Block {
            attributes: vec![attribute("s", Type::String)],
            blocks: Vec::new(),
        };
        let value = json!({"s": "  a\u{1b}[31m\rb\r\n\tc\n"});
        assert_eq!(
            render(&block, &value, &[]),
            "{\n    s = <<-EOT\n        a\\x1b[31m\\rb\r\n        \tc\n    EOT\n}"
        );
    }
}
