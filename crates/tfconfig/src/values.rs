//! The values of a root module that can be known without running Terraform: `var.NAME` (from the
//! variable's `default`, `TF_VAR_NAME`, `terraform.tfvars`, `terraform.tfvars.json`,
//! `*.auto.tfvars` and `*.auto.tfvars.json` in lexical order, then `--var-file` and `--var` in the
//! order given: OpenTofu's precedence, the later winning) and `local.NAME` of those. One
//! evaluator for every reader of configuration that OpenTofu evaluates statically: the
//! `encryption` block, and next the provider blocks of the plugin reader.
//!
//! Expressions are evaluated with hcl-rs's evaluator over `var` and `local` objects. Nothing is
//! evaluated that needs the state, a provider or a function; such an expression is an error that
//! names the file and the attribute, never the values it saw (a passphrase is one of them).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use hcl::eval::{Context, Evaluate};
use serde_json::Value;

use crate::ConfigError;
use crate::module::Module;

/// The flags that give a root module's variables values (`--var`, `--var-file`).
#[derive(Clone, Default)]
pub struct Inputs {
    /// `--var NAME=VALUE`, in the order given.
    pub vars: Vec<String>,
    /// `--var-file FILE`, in the order given.
    pub var_files: Vec<PathBuf>,
    /// `TF_VAR_NAME` values; the process environment unless a test says otherwise.
    pub env: Vec<(String, String)>,
}

impl std::fmt::Debug for Inputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Names and files only: a value may be a passphrase.
        let name = |raw: &String| raw.split_once('=').map_or("?", |(name, _)| name).to_owned();
        f.debug_struct("Inputs")
            .field("vars", &self.vars.iter().map(name).collect::<Vec<_>>())
            .field("var_files", &self.var_files)
            .field(
                "env",
                &self.env.iter().map(|(name, _)| name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Inputs {
    /// `--var` and `--var-file` as given, with the `TF_VAR_` variables of the process.
    pub fn from_flags(vars: &[String], var_files: &[PathBuf]) -> Inputs {
        Inputs {
            vars: vars.to_vec(),
            var_files: var_files.to_vec(),
            env: std::env::vars()
                .filter_map(|(key, value)| {
                    key.strip_prefix("TF_VAR_")
                        .map(|name| (name.to_owned(), value))
                })
                .collect(),
        }
    }
}

/// A `variable` block: how a string from the command line or the environment becomes its value.
#[derive(Debug, Clone, Default)]
struct Declaration {
    default: Option<hcl::Value>,
    /// No type, or a primitive one: a raw string is taken as it is (then converted to the
    /// type); a collection type parses it as an HCL expression.
    literal: bool,
    /// `number` or `bool`: the literal string is converted.
    primitive: Option<&'static str>,
}

/// The module's `var` and `local` values, ready to evaluate expressions with.
pub struct Values {
    vars: hcl::Map<String, hcl::Value>,
    locals: hcl::Map<String, hcl::Value>,
    /// Locals that could not be evaluated statically: named when something uses them.
    unknown_locals: BTreeMap<String, String>,
}

impl std::fmt::Debug for Values {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Names only: a variable may hold a passphrase.
        f.debug_struct("Values")
            .field("vars", &self.vars.keys().collect::<Vec<_>>())
            .field("locals", &self.locals.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// Where an attribute is, for errors: `main.tf:12` or `TF_ENCRYPTION`.
pub(crate) type At<'a> = &'a str;

impl Values {
    /// No variables, no locals: the provider blocks' literals only.
    #[cfg(test)]
    pub(crate) fn empty() -> Values {
        Values {
            vars: hcl::Map::new(),
            locals: hcl::Map::new(),
            unknown_locals: BTreeMap::new(),
        }
    }

    /// Reads the `variable` and `locals` blocks of the root module `root` and the values
    /// `inputs` and the tfvars files in its folder give.
    pub fn load(root: &Module, inputs: &Inputs) -> Result<Values, ConfigError> {
        let dir = root.dir();
        let mut declarations = BTreeMap::new();
        let mut local_exprs: Vec<(String, hcl::Expression, String)> = Vec::new();
        for file in root.files() {
            if file.is_json() {
                json_declarations(
                    &file.path,
                    file.json()?,
                    &mut declarations,
                    &mut local_exprs,
                );
            } else {
                let body: hcl::Body = file.native()?.clone().into();
                native_declarations(&file.path, &body, &mut declarations, &mut local_exprs);
            }
        }
        let mut vars = hcl::Map::new();
        for (name, declaration) in &declarations {
            if let Some(default) = &declaration.default {
                vars.insert(name.clone(), default.clone());
            }
        }
        // Lowest first: the environment, then the files Terraform loads by itself, then the
        // command line in its order.
        for (name, raw) in &inputs.env {
            let value = from_string(&format!("TF_VAR_{name}"), name, raw, &declarations)?;
            vars.insert(name.clone(), value);
        }
        for file in auto_files(dir) {
            read_tfvars(&file, &mut vars)?;
        }
        for file in &inputs.var_files {
            let text = read_var_file(file)?;
            tfvars(file, &text, &mut vars)?;
        }
        for (index, raw) in inputs.vars.iter().enumerate() {
            let Some((name, value)) = raw.split_once('=') else {
                // Not echoed: a value typed without its name would be printed.
                return Err(ConfigError::new(format!(
                    "--var number {}: expected NAME=VALUE",
                    index + 1
                )));
            };
            let value = from_string("--var", name, value, &declarations)?;
            vars.insert(name.to_owned(), value);
        }
        let mut values = Values {
            vars,
            locals: hcl::Map::new(),
            unknown_locals: BTreeMap::new(),
        };
        values.evaluate_locals(local_exprs);
        Ok(values)
    }

    /// Locals may use variables and other locals, declared in any order: evaluated in rounds
    /// until a round learns nothing new.
    fn evaluate_locals(&mut self, mut pending: Vec<(String, hcl::Expression, String)>) {
        loop {
            let before = pending.len();
            let mut still = Vec::new();
            for (name, expr, at) in pending {
                match expr.evaluate(&self.context()) {
                    Ok(value) => {
                        self.locals.insert(name, value);
                    }
                    Err(_) => still.push((name, expr, at)),
                }
            }
            pending = still;
            if pending.is_empty() || pending.len() == before {
                break;
            }
        }
        for (name, _, at) in pending {
            self.unknown_locals.insert(name, at);
        }
    }

    fn context(&self) -> Context<'_> {
        let mut context = Context::new();
        context.declare_var("var", hcl::Value::Object(self.vars.clone()));
        context.declare_var("local", hcl::Value::Object(self.locals.clone()));
        context
    }

    /// The value of `expr`, as JSON. `at` names the attribute in errors.
    pub(crate) fn evaluate(
        &self,
        expr: &hcl::Expression,
        at: At<'_>,
    ) -> Result<Value, ConfigError> {
        let value = expr
            .evaluate(&self.context())
            .map_err(|error| self.explain(at, expr, &error))?;
        Ok(to_json(&value))
    }

    /// A string of HCL's JSON syntax: a template, whose `${...}` are evaluated.
    pub(crate) fn evaluate_template(&self, text: &str, at: At<'_>) -> Result<Value, ConfigError> {
        if !text.contains("${") && !text.contains("%{") {
            return Ok(Value::String(text.to_owned()));
        }
        text.parse::<hcl::Template>()
            .map_err(|_| ConfigError::new(format!("{at}: the string is not a valid template")))?;
        let expr = hcl::Expression::from(hcl::TemplateExpr::QuotedString(text.to_owned()));
        self.evaluate(&expr, at)
    }

    /// An evaluation error in words that never echo a value.
    fn explain(&self, at: At<'_>, expr: &hcl::Expression, error: &hcl::eval::Error) -> ConfigError {
        use hcl::eval::ErrorKind;
        let hint = "values come from literals, `var.NAME` (tfvars files, --var-file, --var, TF_VAR_NAME, defaults) and `local.NAME`";
        let missing = |root: &str, key: &str| {
            if root == "local"
                && let Some(place) = self.unknown_locals.get(key)
            {
                return ConfigError::new(format!(
                    "{at}: `local.{key}` ({place}) cannot be evaluated without running OpenTofu"
                ))
                .with_hint(hint);
            }
            let what = if root == "var" { "variable" } else { "local" };
            let fix = if root == "var" {
                format!(
                    "set `TF_VAR_{key}`, or give a tfvars file with `--var-file FILE` (`--var-file <(pass show NAME)` reads it from a command); `--var {key}=...` also works, but puts the value in `ps` and the shell's history"
                )
            } else {
                hint.to_owned()
            };
            ConfigError::new(format!("{at}: the {what} `{root}.{key}` has no value")).with_hint(fix)
        };
        match error.kind() {
            ErrorKind::NoSuchKey(key) => {
                let root = first_root(expr).unwrap_or_default();
                missing(&root, key)
            }
            ErrorKind::UndefinedVar(name) => ConfigError::new(format!(
                "{at}: `{name}` cannot be evaluated without running OpenTofu"
            ))
            .with_hint(hint),
            ErrorKind::UndefinedFunc(name) => ConfigError::new(format!(
                "{at}: the function `{name}` is not evaluated by statectl"
            ))
            .with_hint(hint),
            // The other kinds would quote a value, which may be secret.
            _ => ConfigError::new(format!(
                "{at}: the expression cannot be evaluated statically (its values are not shown)"
            ))
            .with_hint(hint),
        }
    }
}

/// The root name of the first traversal in `expr` (`var` of `var.x`), for naming what is missing.
fn first_root(expr: &hcl::Expression) -> Option<String> {
    match expr {
        hcl::Expression::Traversal(traversal) => match &traversal.expr {
            hcl::Expression::Variable(name) => Some(name.to_string()),
            _ => None,
        },
        hcl::Expression::TemplateExpr(template) => {
            let text = template.to_string();
            if text.contains("local.") && !text.contains("var.") {
                Some("local".into())
            } else {
                Some("var".into())
            }
        }
        _ => None,
    }
}

fn read(file: &Path) -> Result<String, ConfigError> {
    statectl_state::state::bytes::read_text(file).map_err(|error| {
        ConfigError::new(format!(
            "{}: cannot read: {}",
            file.display(),
            statectl_state::state::source::problem(&error)
        ))
    })
}

fn is_json(file: &Path) -> bool {
    file.extension()
        .is_some_and(|extension| extension == "json")
}

/// `terraform.tfvars`, `terraform.tfvars.json`, then `*.auto.tfvars(.json)` in lexical order.
fn auto_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for name in ["terraform.tfvars", "terraform.tfvars.json"] {
        let path = dir.join(name);
        if path.is_file() {
            files.push(path);
        }
    }
    let mut auto: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            (name.ends_with(".auto.tfvars") || name.ends_with(".auto.tfvars.json"))
                .then(|| entry.path())
        })
        .filter(|path| path.is_file())
        .collect();
    auto.sort();
    files.extend(auto);
    files
}

/// A `--var-file`'s text, read once per run: `--var-file <(pass show tofu)` names a pipe
/// (`/dev/fd/63`), which gives its text to the first reader only, and both the encryption block and
/// the provider blocks read the variables.
fn read_var_file(file: &Path) -> Result<String, ConfigError> {
    static READ: OnceLock<Mutex<HashMap<PathBuf, String>>> = OnceLock::new();
    let mut read_already = READ
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(text) = read_already.get(file) {
        return Ok(text.clone());
    }
    match std::fs::metadata(file) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(ConfigError::new(format!(
                "{}: --var-file: no such file",
                file.display()
            )));
        }
        Ok(metadata) if metadata.is_dir() => {
            return Err(ConfigError::new(format!(
                "{}: --var-file: a folder, not a tfvars file",
                file.display()
            )));
        }
        _ => {}
    }
    let text = read(file)?;
    read_already.insert(file.to_owned(), text.clone());
    Ok(text)
}

/// A tfvars file: attributes of literal values (JSON: an object).
fn read_tfvars(file: &Path, vars: &mut hcl::Map<String, hcl::Value>) -> Result<(), ConfigError> {
    let text = read(file)?;
    tfvars(file, &text, vars)
}

/// A tfvars file's `text`: attributes of literal values (JSON: an object).
fn tfvars(
    file: &Path,
    text: &str,
    vars: &mut hcl::Map<String, hcl::Value>,
) -> Result<(), ConfigError> {
    if is_json(file) {
        let value: Value = serde_json::from_str(text).map_err(|error| {
            ConfigError::new(format!(
                "{}:{}:{}: invalid JSON",
                file.display(),
                error.line(),
                error.column()
            ))
        })?;
        let Value::Object(object) = value else {
            return Err(ConfigError::new(format!(
                "{}: a tfvars file holds an object",
                file.display()
            )));
        };
        for (name, value) in object {
            vars.insert(name, from_json(&value));
        }
        return Ok(());
    }
    let body = parse_native(file, text)?;
    let empty = Context::new();
    for attribute in body.attributes() {
        let at = format!("{}: {}", file.display(), attribute.key());
        let value = attribute.expr().evaluate(&empty).map_err(|_| {
            ConfigError::new(format!(
                "{at}: a tfvars file takes literal values (its value is not shown)"
            ))
        })?;
        vars.insert(attribute.key().to_owned(), value);
    }
    Ok(())
}

/// Parses a native-syntax file into hcl-rs's structure, naming the place of a syntax error.
pub(crate) fn parse_native(file: &Path, text: &str) -> Result<hcl::Body, ConfigError> {
    let body = hcl::edit::parser::parse_body(text).map_err(|error| {
        let location = error.location();
        ConfigError::new(format!(
            "{}:{}:{}: invalid configuration: {}",
            file.display(),
            location.line(),
            location.column(),
            error.message().lines().next().unwrap_or_default()
        ))
    })?;
    Ok(body.into())
}

fn native_declarations(
    file: &Path,
    body: &hcl::Body,
    declarations: &mut BTreeMap<String, Declaration>,
    locals: &mut Vec<(String, hcl::Expression, String)>,
) {
    for block in body.blocks() {
        match block.identifier() {
            "variable" => {
                let Some(name) = block.labels().first() else {
                    continue;
                };
                let mut declaration = Declaration {
                    literal: true,
                    ..Declaration::default()
                };
                for attribute in block.body().attributes() {
                    match attribute.key() {
                        "default" => {
                            declaration.default = attribute.expr().evaluate(&Context::new()).ok();
                        }
                        "type" => set_type(&mut declaration, &attribute.expr().to_string()),
                        _ => {}
                    }
                }
                declarations.insert(name.as_str().to_owned(), declaration);
            }
            "locals" => {
                for attribute in block.body().attributes() {
                    locals.push((
                        attribute.key().to_owned(),
                        attribute.expr().clone(),
                        file.display().to_string(),
                    ));
                }
            }
            _ => {}
        }
    }
}

fn set_type(declaration: &mut Declaration, written: &str) {
    let written = written.trim();
    let written = written
        .strip_prefix("${")
        .and_then(|rest| rest.strip_suffix('}'))
        .unwrap_or(written);
    match written {
        "string" => declaration.literal = true,
        "number" => declaration.primitive = Some("number"),
        "bool" => declaration.primitive = Some("bool"),
        _ => declaration.literal = false,
    }
}

fn json_declarations(
    file: &Path,
    value: &Value,
    declarations: &mut BTreeMap<String, Declaration>,
    locals: &mut Vec<(String, hcl::Expression, String)>,
) {
    for variables in each_object(value.get("variable")) {
        for (name, body) in variables {
            for body in each_object(Some(body)) {
                let mut declaration = Declaration {
                    literal: true,
                    ..Declaration::default()
                };
                if let Some(default) = body.get("default") {
                    declaration.default = Some(from_json(default));
                }
                if let Some(Value::String(written)) = body.get("type") {
                    set_type(&mut declaration, written);
                }
                declarations.insert(name.clone(), declaration);
            }
        }
    }
    for block in each_object(value.get("locals")) {
        for (name, value) in block {
            let expr = match value {
                Value::String(text) => {
                    hcl::Expression::from(hcl::TemplateExpr::QuotedString(text.clone()))
                }
                other => hcl::Expression::from(from_json(other)),
            };
            locals.push((name.clone(), expr, file.display().to_string()));
        }
    }
}

/// An object, or each object of an array of them (HCL JSON's repeated blocks).
pub(crate) fn each_object(value: Option<&Value>) -> Vec<&serde_json::Map<String, Value>> {
    match value {
        Some(Value::Object(object)) => vec![object],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_object).collect(),
        _ => Vec::new(),
    }
}

/// A `--var` or `TF_VAR_` string as the variable's declaration takes it.
fn from_string(
    from: &str,
    name: &str,
    raw: &str,
    declarations: &BTreeMap<String, Declaration>,
) -> Result<hcl::Value, ConfigError> {
    let declaration = declarations.get(name);
    let literal = declaration.is_none_or(|d| d.literal || d.primitive.is_some());
    if literal {
        return Ok(match declaration.and_then(|d| d.primitive) {
            Some("number") => match raw.trim().parse::<hcl::Expression>() {
                Ok(hcl::Expression::Number(number)) => hcl::Value::Number(number),
                _ => hcl::Value::String(raw.to_owned()),
            },
            Some("bool") => match raw.trim() {
                "true" => hcl::Value::Bool(true),
                "false" => hcl::Value::Bool(false),
                _ => hcl::Value::String(raw.to_owned()),
            },
            _ => hcl::Value::String(raw.to_owned()),
        });
    }
    let expr: hcl::Expression = raw.parse().map_err(|_| {
        ConfigError::new(format!(
            "{from}: the value of `{name}` is not a valid HCL expression (its type is not a string)"
        ))
    })?;
    expr.evaluate(&Context::new()).map_err(|_| {
        ConfigError::new(format!(
            "{from}: the value of `{name}` must be a literal (its value is not shown)"
        ))
    })
}

pub(crate) fn from_json(value: &Value) -> hcl::Value {
    hcl::to_value(value).unwrap_or(hcl::Value::Null)
}

pub(crate) fn to_json(value: &hcl::Value) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    /// The values of a module of these files, with no inputs.
    fn values_of(files: &[(&str, &str)]) -> Values {
        let dir = folder(files);
        Values::load(&Module::read(dir.path()).unwrap(), &Inputs::default()).unwrap()
    }

    /// `text` evaluated, as `at` says where it stands.
    fn evaluate(values: &Values, text: &str, at: &str) -> Result<Value, ConfigError> {
        let expr: hcl::Expression = text.parse().unwrap();
        values.evaluate(&expr, at)
    }

    fn value_of(values: &Values, text: &str) -> Value {
        evaluate(values, text, "test").unwrap()
    }

    #[test]
    fn the_later_sources_win_in_opentofus_order() {
        let dir = folder(&[
            (
                "main.tf",
                "variable \"a\" { default = \"default\" }\nvariable \"b\" { default = \"default\" }\nvariable \"c\" {}\nvariable \"d\" {}\nvariable \"e\" {}\nvariable \"n\" { type = number }\n",
            ),
            (
                "terraform.tfvars",
                "b = \"tfvars\"\nc = \"tfvars\"\nd = \"tfvars\"\n",
            ),
            ("b.auto.tfvars", "c = \"auto-b\"\n"),
            ("a.auto.tfvars", "c = \"auto-a\"\nd = \"auto-a\"\n"),
            ("extra.tfvars", "d = \"var-file\"\n"),
        ]);
        let inputs = Inputs {
            vars: vec!["e=flag".into()],
            var_files: vec![dir.path().join("extra.tfvars")],
            env: vec![
                ("b".into(), "env".into()),
                ("e".into(), "env".into()),
                ("n".into(), "600000".into()),
            ],
        };
        let values = Values::load(&Module::read(dir.path()).unwrap(), &inputs).unwrap();
        assert_eq!(value_of(&values, "var.a"), "default");
        assert_eq!(value_of(&values, "var.b"), "tfvars");
        assert_eq!(value_of(&values, "var.c"), "auto-b");
        assert_eq!(value_of(&values, "var.d"), "var-file");
        assert_eq!(value_of(&values, "var.e"), "flag");
        assert_eq!(value_of(&values, "var.n"), serde_json::json!(600_000));
    }

    #[test]
    fn locals_use_variables_and_each_other_in_any_order() {
        let values = values_of(&[(
            "main.tf",
            "locals {\n  b = \"${local.a}-b\"\n  a = \"${var.x}-a\"\n}\nvariable \"x\" { default = \"x\" }\n",
        )]);
        assert_eq!(value_of(&values, "local.b"), "x-a-b");
    }

    #[test]
    fn a_missing_variable_is_named_without_any_value() {
        let values = values_of(&[("main.tf", "variable \"secret\" {}\n")]);
        let error = evaluate(&values, "var.secret", "main.tf: passphrase").unwrap_err();
        assert_eq!(
            error.message,
            "main.tf: passphrase: the variable `var.secret` has no value"
        );
        assert!(error.hint.unwrap().contains("TF_VAR_secret"));
    }

    #[test]
    fn an_expression_that_needs_opentofu_is_refused_without_echoing_values() {
        let values = values_of(&[(
            "main.tf",
            "variable \"p\" { default = \"hunter2hunter2hunter2\" }\n",
        )]);
        let error = evaluate(&values, "var.p + 1", "at").unwrap_err();
        assert!(!error.message.contains("hunter2"), "{}", error.message);
        assert!(evaluate(&values, "data.x.y", "at").is_err());
    }
}
