//! Reading a traversal as an address, following Terraform's
//! `parseModuleInstancePrefix` and `parseResourceInstanceUnderModule`: the
//! leading `module.NAME[KEY]` steps are the module path, and what follows is
//! a resource (`[data.|resource.]TYPE.NAME`) with an optional instance key.
//! The `parse` methods of the public types all come here.

use super::AddressError;
use super::key::InstanceKey;
use super::module::{ModulePath, ModuleStep};
use super::number::whole_number;
use super::resource::{InstanceAddr, Mode, ObjectAddr, ResourceAddr};
use super::target::Target;
use super::traversal::{Step, StepKind, parse_traversal};

/// Words that cannot start a resource address because they would read as
/// something else in an expression; Terraform asks for a `resource.` prefix
/// when a resource type really has one of these names.
const RESERVED_ROOTS: &[&str] = &[
    "count",
    "each",
    "local",
    "module",
    "path",
    "self",
    "terraform",
    "var",
    "template",
    "lazy",
    "arg",
];

/// An address as `parse_address` reads it, with what the typed parsers need
/// to reject the wrong kind of address.
struct ParsedAddress {
    target: Target,
    /// Where the resource instance key was, for a better error when a key
    /// is not wanted.
    key_at: Option<usize>,
    /// Where the address begins, past any leading blanks or comments.
    start: usize,
    deposed: Option<String>,
}

/// `ModulePath::parse`.
pub(super) fn module_path(src: &str) -> Result<ModulePath, AddressError> {
    if src.is_empty() {
        return Ok(ModulePath::root());
    }
    let parsed = parse_traversal(src, false)?;
    let (path, used) = module_prefix(&parsed.steps)?;
    match parsed.steps.get(used) {
        None => Ok(path),
        Some(step) if used == 0 => Err(AddressError::new(
            format!(
                "a module path must start with \"module.\", found {}",
                step.describe()
            ),
            step.at,
        )),
        Some(step) => Err(AddressError::new(
            format!("unexpected {} after the module path", step.describe()),
            step.at,
        )),
    }
}

/// `Target::parse`.
pub(super) fn target(src: &str) -> Result<Target, AddressError> {
    Ok(parse_address(src, false)?.target)
}

/// `ResourceAddr::parse`.
pub(super) fn resource(src: &str) -> Result<ResourceAddr, AddressError> {
    let parsed = parse_address(src, false)?;
    match parsed.target {
        Target::Resource(resource) => Ok(resource),
        Target::Instance(_) => Err(AddressError::new(
            "expected a resource address, but this names one instance of it",
            parsed.key_at.unwrap_or(0),
        )),
        Target::Module(_) => Err(AddressError::new(
            "expected a resource address, but this is a module path",
            parsed.start,
        )),
    }
}

/// `InstanceAddr::parse`.
pub(super) fn instance(src: &str) -> Result<InstanceAddr, AddressError> {
    into_instance(parse_address(src, false)?)
}

/// `ObjectAddr::parse`.
pub(super) fn object(src: &str) -> Result<ObjectAddr, AddressError> {
    let mut parsed = parse_address(src, true)?;
    let deposed = parsed.deposed.take();
    let instance = into_instance(parsed)?;
    Ok(ObjectAddr { instance, deposed })
}

fn into_instance(parsed: ParsedAddress) -> Result<InstanceAddr, AddressError> {
    match parsed.target {
        Target::Resource(resource) => Ok(InstanceAddr {
            resource,
            key: None,
        }),
        Target::Instance(instance) => Ok(instance),
        Target::Module(_) => Err(AddressError::new(
            "expected a resource instance address, but this is a module path",
            parsed.start,
        )),
    }
}

/// Reads any address `Target::parse` accepts, and with `allow_deposed` an
/// optional deposed-object suffix.
fn parse_address(src: &str, allow_deposed: bool) -> Result<ParsedAddress, AddressError> {
    let traversal = parse_traversal(src, allow_deposed)?;
    let start = traversal.steps[0].at;
    let (module, used) = module_prefix(&traversal.steps)?;
    let rest = &traversal.steps[used..];
    if rest.is_empty() {
        if traversal.deposed.is_some() {
            return Err(AddressError::new(
                "a deposed object needs a resource instance address, but this is a module path",
                start,
            ));
        }
        return Ok(ParsedAddress {
            target: Target::Module(module),
            key_at: None,
            start,
            deposed: None,
        });
    }
    let (resource, key) = resource_under_module(module, rest, src.len())?;
    let (target, key_at) = match key {
        None => (Target::Resource(resource), None),
        Some((key, at)) => (
            Target::Instance(InstanceAddr {
                resource,
                key: Some(key),
            }),
            Some(at),
        ),
    };
    Ok(ParsedAddress {
        target,
        key_at,
        start,
        deposed: traversal.deposed,
    })
}

/// Consumes the leading `module.NAME[KEY]` steps; returns the path and how
/// many steps it used.
fn module_prefix(steps: &[Step]) -> Result<(ModulePath, usize), AddressError> {
    let mut path = Vec::new();
    let mut i = 0;
    while let Some(step) = steps.get(i) {
        let Some(word) = step.name() else {
            return Err(AddressError::new(
                "a module instance key must be followed by \".\" and a name",
                step.at,
            ));
        };
        if word != "module" {
            break;
        }
        let name = match steps.get(i + 1) {
            Some(Step {
                kind: StepKind::Name(name),
                ..
            }) => name.clone(),
            Some(other) => {
                return Err(AddressError::new(
                    format!(
                        "\"module\" must be followed by \".\" and a module name, found {}",
                        other.describe()
                    ),
                    other.at,
                ));
            }
            None => {
                return Err(AddressError::new(
                    "\"module\" must be followed by \".\" and a module name",
                    step.at,
                ));
            }
        };
        i += 2;
        let mut key = None;
        if let Some(step) = steps.get(i)
            && let Some(k) = index_key(step, "module")?
        {
            key = Some(k);
            i += 1;
        }
        path.push(ModuleStep { name, key });
    }
    Ok((ModulePath(path.into()), i))
}

/// Converts an index step to an instance key; `None` if the step is a name.
fn index_key(step: &Step, what: &str) -> Result<Option<InstanceKey>, AddressError> {
    match &step.kind {
        StepKind::Name(_) => Ok(None),
        StepKind::Str(s) => Ok(Some(InstanceKey::Str(s.clone()))),
        StepKind::Number(text, at) => whole_number(text)
            .map(|n| Some(InstanceKey::Int(n)))
            .map_err(|problem| AddressError::new(format!("{what} key {text} {problem}"), *at)),
    }
}

type KeyAndOffset = (InstanceKey, usize);

fn resource_under_module(
    module: ModulePath,
    steps: &[Step],
    end: usize,
) -> Result<(ResourceAddr, Option<KeyAndOffset>), AddressError> {
    let first = &steps[0];
    let mut mode = Mode::Managed;
    let mut rest = steps;
    match first.name() {
        Some("data") => {
            mode = Mode::Data;
            rest = &steps[1..];
        }
        Some("resource") => rest = &steps[1..],
        Some(word @ ("ephemeral" | "list")) => {
            return Err(AddressError::new(
                format!(
                    "{word} resources are never stored in state, so they cannot be addressed here"
                ),
                first.at,
            ));
        }
        Some(word) if RESERVED_ROOTS.contains(&word) => {
            return Err(AddressError::new(
                format!(
                    "{word:?} is a reserved word and cannot start a resource address; if it is a resource type, write \"resource.{word}\""
                ),
                first.at,
            ));
        }
        _ => {}
    }
    if rest.len() < 2 {
        let at = rest.first().map_or(end, |s| s.at);
        return Err(AddressError::new(
            "a resource address needs a resource type and a resource name",
            at,
        ));
    }
    let Some(type_name) = rest[0].name() else {
        let what = match mode {
            Mode::Managed => "a resource type",
            Mode::Data => "a data source type",
        };
        return Err(AddressError::new(
            format!("expected {what}, found {}", rest[0].describe()),
            rest[0].at,
        ));
    };
    let Some(name) = rest[1].name() else {
        return Err(AddressError::new(
            format!("expected a resource name, found {}", rest[1].describe()),
            rest[1].at,
        ));
    };
    let resource = ResourceAddr {
        module,
        mode,
        type_name: type_name.to_string(),
        name: name.to_string(),
    };
    match &rest[2..] {
        [] => Ok((resource, None)),
        [step] => match index_key(step, "resource instance")? {
            Some(key) => Ok((resource, Some((key, step.at)))),
            None => Err(AddressError::new(
                format!(
                    "a resource instance key must be given in square brackets, found {}",
                    step.describe()
                ),
                step.at,
            )),
        },
        [_, extra, ..] => Err(AddressError::new(
            format!(
                "unexpected {} after the resource instance address",
                extra.describe()
            ),
            extra.at,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{target, target_err};

    /// Spellings Terraform's HCL traversal parser accepts and normalises.
    #[test]
    fn accepts_what_terraform_accepts() {
        let cases: &[(&str, &str)] = &[
            // Blanks and line breaks may separate any two tokens.
            (
                " module . a [ 0 ] . aws_x . y [ \"k\" ] ",
                r#"module.a[0].aws_x.y["k"]"#,
            ),
            ("aws_x.y\r\n[0]\n", "aws_x.y[0]"),
            ("\taws_x\t.y", "aws_x.y"),
            // Comments are skipped like blanks.
            ("aws_x.y # a note", "aws_x.y"),
            ("aws_x.y // a note\n", "aws_x.y"),
            ("aws_x.y /* a\nnote */ [1]", "aws_x.y[1]"),
            // A byte-order mark at the start is dropped.
            ("\u{feff}aws_x.y", "aws_x.y"),
            // `resource.` is an optional prefix (Terraform 1.10+).
            ("resource.aws_x.y", "aws_x.y"),
            ("module.a.resource.aws_x.y[0]", "module.a.aws_x.y[0]"),
            // Number literals are decimal floats that must be whole.
            ("aws_x.y[007]", "aws_x.y[7]"),
            ("aws_x.y[1e3]", "aws_x.y[1000]"),
            ("aws_x.y[1.0]", "aws_x.y[1]"),
            ("aws_x.y[10e-1]", "aws_x.y[1]"),
            ("aws_x.y[1.e2]", "aws_x.y[100]"),
            ("module.a[2E+1].aws_x.y", "module.a[20].aws_x.y"),
            (
                "aws_x.y[9223372036854775807]",
                "aws_x.y[9223372036854775807]",
            ),
            // Escapes decode; printing re-escapes only what Terraform does.
            (r#"aws_x.y["\u00e9\U0001F680"]"#, r#"aws_x.y["é🚀"]"#),
            (r#"aws_x.y["\u00A0"]"#, r#"aws_x.y["\u00a0"]"#),
            ("aws_x.y[\"raw\ttab\"]", r#"aws_x.y["raw\ttab"]"#),
            (r#"aws_x.y["$$"]"#, r#"aws_x.y["$$"]"#),
            (r#"aws_x.y["$$$${"]"#, r#"aws_x.y["$$$${"]"#),
            // Identifiers are Unicode (ID_Start/ID_Continue) plus `-`.
            ("aws_x.café", "aws_x.café"),
            ("module.日本.aws_x.y", "module.日本.aws_x.y"),
            ("aws_x.e\u{301}-1", "aws_x.e\u{301}-1"),
            ("_x.y_-z", "_x.y_-z"),
            // Only the first word after the module path is special.
            ("data.data.x", "data.data.x"),
            ("data.count.x", "data.count.x"),
            // After `module.` any name is a module name.
            (
                "module.data.module.count.data.x.y",
                "module.data.module.count.data.x.y",
            ),
        ];
        for (input, printed) in cases {
            let t = target(input);
            assert_eq!(t.to_string(), *printed, "{input:?}");
            assert_eq!(target(printed), t, "{printed:?}");
        }
    }

    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "a table: every refusal with its message and offset, one row each"
    )]
    fn rejects_invalid_addresses_with_a_clear_error() {
        let cases: &[(&str, &str, usize)] = &[
            ("", "the address is empty", 0),
            ("aws_x.y[-1]", "an index cannot be negative", 8),
            (
                "aws_x.y[1.5]",
                "resource instance key 1.5 is not a whole number",
                8,
            ),
            (
                "aws_x.y[15e-1]",
                "resource instance key 15e-1 is not a whole number",
                8,
            ),
            (
                "aws_x.y[9223372036854775808]",
                "resource instance key 9223372036854775808 is too large; the largest allowed is 9223372036854775807",
                8,
            ),
            (
                "module.a[0.5].x.y",
                "module key 0.5 is not a whole number",
                9,
            ),
            (
                "aws_x.y[1..2]",
                "resource instance key 1..2 is not a valid number",
                8,
            ),
            (
                "aws_x.y[0x10]",
                "expected \"]\" to close the index, found name \"x10\"",
                9,
            ),
            (
                "aws_x.y[1",
                "expected \"]\" to close the index, found end of input",
                9,
            ),
            ("aws_x.y[\"abc", "unterminated quoted string", 8),
            ("aws_x.y[\"abc\\", "unterminated quoted string", 12),
            (
                "aws_x.y[\"a\"] extra",
                "expected \".\", \"[\" or the end of the address, found name \"extra\"",
                13,
            ),
            (
                "aws_x.y!",
                "expected \".\", \"[\" or the end of the address, found \"!\"",
                7,
            ),
            (
                "aws_x.y[\"${var.x}\"]",
                "template interpolation \"${\" is not allowed in an address; write \"$${\" for a literal \"${\"",
                9,
            ),
            (
                "aws_x.y[\"a%{if x}\"]",
                "template directive \"%{\" is not allowed in an address; write \"%%{\" for a literal \"%{\"",
                10,
            ),
            (
                "aws_x.y[\"$${x}${y}\"]",
                "template interpolation \"${\" is not allowed in an address; write \"$${\" for a literal \"${\"",
                14,
            ),
            (
                "aws_x.y[\"\\q\"]",
                "unknown escape sequence \"\\q\" in quoted string",
                9,
            ),
            (
                "aws_x.y[\"\\u12\"]",
                "\"\\u\" must be followed by exactly 4 hexadecimal digits",
                9,
            ),
            (
                "aws_x.y[\"\\U0001F60\"]",
                "\"\\U\" must be followed by exactly 8 hexadecimal digits",
                9,
            ),
            (
                "aws_x.y[\"\\uD800\"]",
                "\"\\uD800\" is not a Unicode scalar value",
                9,
            ),
            (
                "aws_x.y[\"\\U00110000\"]",
                "\"\\U00110000\" is not a Unicode scalar value",
                9,
            ),
            (
                "aws_x.y[\"a\nb\"]",
                "a quoted string cannot contain a line break; write \\n or \\r instead",
                10,
            ),
            (
                "aws_x.y[\"a\\\nb\"]",
                "a quoted string cannot contain a line break; write \\n or \\r instead",
                10,
            ),
            (
                "aws_x.y['a']",
                "an index must be a whole number or a quoted string, found \"'\"",
                8,
            ),
            (
                "aws_x.y[true]",
                "an index must be a whole number or a quoted string, found name \"true\"",
                8,
            ),
            (
                "aws_x.y[]",
                "an index must be a whole number or a quoted string, found \"]\"",
                8,
            ),
            (
                "aws_x.y[*]",
                "the wildcard \"[*]\" is not allowed in an address",
                8,
            ),
            (
                "aws_x.*",
                "the wildcard \".*\" is not allowed in an address",
                6,
            ),
            (
                "aws_x.y[0][1]",
                "unexpected index [1] after the resource instance address",
                10,
            ),
            (
                "aws_x.y[0].z",
                "unexpected name \"z\" after the resource instance address",
                10,
            ),
            (
                "aws_x.y.z",
                "a resource instance key must be given in square brackets, found name \"z\"",
                7,
            ),
            (
                "aws_x",
                "a resource address needs a resource type and a resource name",
                0,
            ),
            (
                "data.aws_x",
                "a resource address needs a resource type and a resource name",
                4,
            ),
            (
                "module.a.data",
                "a resource address needs a resource type and a resource name",
                13,
            ),
            (
                "aws_x[\"a\"]",
                "expected a resource name, found a string index",
                5,
            ),
            (
                "data[\"a\"].b",
                "expected a data source type, found a string index",
                4,
            ),
            ("aws_x..y", "expected a name after \".\", found \".\"", 6),
            ("aws_x.0", "expected a name after \".\", found number 0", 6),
            (
                "aws_x.y.",
                "expected a name after \".\", found end of input",
                8,
            ),
            (
                "0abc.x",
                "an address must start with a name, found number 0",
                0,
            ),
            ("-x.y", "an address must start with a name, found \"-\"", 0),
            ("[0]", "an address must start with a name, found \"[\"", 0),
            (
                "count.x",
                "\"count\" is a reserved word and cannot start a resource address; if it is a resource type, write \"resource.count\"",
                0,
            ),
            (
                "module.a.var.x",
                "\"var\" is a reserved word and cannot start a resource address; if it is a resource type, write \"resource.var\"",
                8,
            ),
            (
                "ephemeral.x.y",
                "ephemeral resources are never stored in state, so they cannot be addressed here",
                0,
            ),
            (
                "list.x.y",
                "list resources are never stored in state, so they cannot be addressed here",
                0,
            ),
            (
                "module",
                "\"module\" must be followed by \".\" and a module name",
                0,
            ),
            (
                "module.a.module",
                "\"module\" must be followed by \".\" and a module name",
                8,
            ),
            (
                "module[\"a\"]",
                "\"module\" must be followed by \".\" and a module name, found a string index",
                6,
            ),
            (
                "module.a[0][1].x.y",
                "a module instance key must be followed by \".\" and a name",
                11,
            ),
            ("aws_x.y /* open", "unterminated /* comment", 8),
            (
                "aws_x.y\r[0]",
                "expected \".\", \"[\" or the end of the address, found \"\\r\"",
                7,
            ),
            (
                "aws_x.y\u{a0}",
                "expected \".\", \"[\" or the end of the address, found \"\\u{a0}\"",
                7,
            ),
            (
                "aws_x.y²",
                "expected \".\", \"[\" or the end of the address, found \"²\"",
                7,
            ),
        ];
        for (input, message, offset) in cases {
            let e = target_err(input);
            assert_eq!(
                (e.message.as_str(), e.offset),
                (*message, *offset),
                "{input:?}"
            );
        }
    }
}
