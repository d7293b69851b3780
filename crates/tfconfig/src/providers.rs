//! The root module's `provider` blocks, for configuring a provider plugin without Terraform: an
//! argument is taken when it is a literal (strings without interpolation, numbers, bools, null, and
//! lists and objects of those; numbers keep their spelling) or when the module's static values
//! evaluate it (`var.NAME` and `local.NAME`, in templates too: `values.rs`); what needs Terraform
//! itself (a data source, a resource, a function) is listed as skipped and the caller says so (the
//! plugin still inherits the environment, where most providers find credentials and regions). Nested blocks
//! (`endpoints { ... }`, `assume_role { ... }`) become lists of objects, which the plugin reader fits
//! to the nesting the provider's schema declares.

use std::path::{Path, PathBuf};

use hcl::edit::Span;
use hcl::edit::expr::{Expression, ObjectKey};
use hcl::edit::structure::{Body, Structure};
use serde_json::{Map, Value};

use crate::ConfigError;
use crate::module::Module;
use crate::values::Values;

/// One `provider "NAME" { ... }` block of the root module.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderBlock {
    /// The provider's local name (`aws`).
    pub name: String,
    /// `alias = "west"`, when set.
    pub alias: Option<String>,
    /// The literal arguments, nested blocks as lists of objects; `alias` and `version` left out
    /// (they are Terraform's, not the provider's).
    pub arguments: Map<String, Value>,
    /// Arguments (dotted inside nested blocks) that are not literals and were left out.
    pub skipped: Vec<String>,
    pub file: PathBuf,
}

impl ProviderBlock {
    /// `aws`, or `aws.west` for an aliased configuration: how `--provider-config` names it.
    pub fn config_name(&self) -> String {
        match &self.alias {
            Some(alias) => format!("{}.{alias}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Every `provider` block in the `.tf` and `.tf.json` files of the root module `root`: literals,
/// and `var.` and `local.` references evaluated from `values` (`values` empty: literals only).
pub fn read_provider_blocks(
    root: &Module,
    values: &Values,
) -> Result<Vec<ProviderBlock>, ConfigError> {
    let mut blocks = Vec::new();
    for file in root.files() {
        if file.is_json() {
            read_json(&file.path, file.json()?, values, &mut blocks)?;
        } else {
            read_native(&file.path, &file.text, file.native()?, values, &mut blocks)?;
        }
    }
    Ok(blocks)
}

fn read_native(
    file: &Path,
    text: &str,
    body: &Body,
    values: &Values,
    blocks: &mut Vec<ProviderBlock>,
) -> Result<(), ConfigError> {
    for block in body
        .blocks()
        .filter(|block| block.ident.as_str() == "provider")
    {
        let Some(name) = block.labels.first().map(|label| label.as_str().to_owned()) else {
            let line = block
                .span()
                .map_or(0, |span| text[..span.start].matches('\n').count() + 1);
            return Err(ConfigError::new(format!(
                "{}:{line}: a `provider` block needs one label, the provider's name",
                file.display()
            )));
        };
        let mut skipped = Vec::new();
        let mut arguments = body_arguments(&block.body, "", values, &mut skipped);
        let alias = take_string(&mut arguments, "alias");
        arguments.remove("version");
        blocks.push(ProviderBlock {
            name,
            alias,
            arguments,
            skipped,
            file: file.to_owned(),
        });
    }
    Ok(())
}

/// A body's literal attributes, and its nested blocks as lists of objects.
fn body_arguments(
    body: &Body,
    prefix: &str,
    values: &Values,
    skipped: &mut Vec<String>,
) -> Map<String, Value> {
    let mut arguments = Map::new();
    for structure in body {
        match structure {
            Structure::Attribute(attribute) => {
                let key = attribute.key.as_str();
                let evaluated = || {
                    values
                        .evaluate(&hcl::Expression::from(attribute.value.clone()), key)
                        .ok()
                };
                match literal(&attribute.value).or_else(evaluated) {
                    Some(value) => {
                        arguments.insert(key.to_owned(), value);
                    }
                    None => skipped.push(format!("{prefix}{key}")),
                }
            }
            Structure::Block(block) => {
                let key = block.ident.as_str();
                let inner =
                    body_arguments(&block.body, &format!("{prefix}{key}."), values, skipped);
                let list = arguments
                    .entry(key.to_owned())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(items) = list {
                    items.push(Value::Object(inner));
                }
            }
        }
    }
    arguments
}

/// The JSON value of a literal expression; `None` for anything Terraform would have to evaluate.
fn literal(expression: &Expression) -> Option<Value> {
    Some(match expression {
        Expression::Null(_) => Value::Null,
        Expression::Bool(value) => Value::Bool(*value.value()),
        Expression::Number(number) => number_value(&number_text(number))?,
        Expression::String(text) => Value::String(text.value().clone()),
        Expression::Array(items) => Value::Array(items.iter().map(literal).collect::<Option<_>>()?),
        Expression::Object(object) => {
            let mut members = Map::new();
            for (key, value) in object {
                let key = match key {
                    ObjectKey::Ident(ident) => ident.as_str().to_owned(),
                    ObjectKey::Expression(Expression::String(text)) => text.value().clone(),
                    ObjectKey::Expression(_) => return None,
                };
                members.insert(key, literal(value.expr())?);
            }
            Value::Object(members)
        }
        Expression::Parenthesis(inner) => literal(inner.inner())?,
        Expression::UnaryOp(operation)
            if *operation.operator.value() == hcl::edit::expr::UnaryOperator::Neg =>
        {
            match &operation.expr {
                Expression::Number(number) => number_value(&format!("-{}", number_text(number)))?,
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// A number as written (the parser's float would turn `42.50` into `42.5`).
fn number_text(number: &hcl::edit::Formatted<hcl::Number>) -> String {
    number
        .as_repr()
        .map_or_else(|| number.value().to_string(), |raw| raw.to_string())
}

/// A number as its exact decimal text.
fn number_value(text: &str) -> Option<Value> {
    serde_json::from_str::<serde_json::Number>(text)
        .ok()
        .map(Value::Number)
}

fn take_string(arguments: &mut Map<String, Value>, key: &str) -> Option<String> {
    match arguments.remove(key) {
        Some(Value::String(text)) => Some(text),
        _ => None,
    }
}

/// `{"provider": {"aws": {...}}}` or `{"provider": {"aws": [{...}, {...}]}}`; strings holding `${`
/// are templates, not literals.
fn read_json(
    file: &Path,
    document: &Value,
    values: &Values,
    blocks: &mut Vec<ProviderBlock>,
) -> Result<(), ConfigError> {
    let Some(Value::Object(providers)) = document.get("provider") else {
        return Ok(());
    };
    for (name, bodies) in providers {
        let bodies: Vec<&Value> = match bodies {
            Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        for body in bodies {
            let Value::Object(members) = body else {
                return Err(ConfigError::new(format!(
                    "{}: provider `{name}` must be an object",
                    file.display()
                )));
            };
            let mut skipped = Vec::new();
            let mut arguments = Map::new();
            for (key, value) in members {
                if json_literal(value) {
                    arguments.insert(key.clone(), value.clone());
                } else if let Some(value) = json_evaluated(value, values) {
                    arguments.insert(key.clone(), value);
                } else {
                    skipped.push(key.clone());
                }
            }
            let alias = take_string(&mut arguments, "alias");
            arguments.remove("version");
            blocks.push(ProviderBlock {
                name: name.clone(),
                alias,
                arguments,
                skipped,
                file: file.to_owned(),
            });
        }
    }
    Ok(())
}

/// A JSON value whose strings are templates, evaluated; `None` when one needs Terraform.
fn json_evaluated(value: &Value, values: &Values) -> Option<Value> {
    Some(match value {
        Value::String(text) => values.evaluate_template(text, "").ok()?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| json_evaluated(item, values))
                .collect::<Option<_>>()?,
        ),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(key, item)| Some((key.clone(), json_evaluated(item, values)?)))
                .collect::<Option<_>>()?,
        ),
        other => other.clone(),
    })
}

fn json_literal(value: &Value) -> bool {
    match value {
        Value::String(text) => !text.contains("${") && !text.contains("%{"),
        Value::Array(items) => items.iter().all(json_literal),
        Value::Object(members) => members.values().all(json_literal),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use serde_json::json;

    use super::*;

    fn blocks_of(name: &str, text: &str) -> Vec<ProviderBlock> {
        let folder = tempfile::tempdir().unwrap();
        fs::write(folder.path().join(name), text).unwrap();
        read_provider_blocks(&Module::read(folder.path()).unwrap(), &Values::empty()).unwrap()
    }

    #[test]
    fn takes_literals_and_nested_blocks_and_lists_what_needs_evaluation() {
        let blocks = blocks_of(
            "main.tf",
            r#"
provider "aws" {
  region                      = "us-east-1"
  access_key                  = "test"
  skip_credentials_validation = true
  max_retries                 = -1
  allowed_account_ids         = ["123456789012"]
  default_tags { tags = { team = "sre", "cost-center" = 42.50 } }
  endpoints {
    ec2 = "http://127.0.0.1:4566"
    rds = var.endpoint
  }
  profile = "${var.profile}-x"
  version = "~> 3.39"
}

provider "aws" {
  alias  = "west"
  region = "us-west-2"
}

resource "aws_instance" "a" {}
"#,
        );
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].config_name(), "aws");
        let expected: Value = serde_json::from_str(
            r#"{
                "region": "us-east-1",
                "access_key": "test",
                "skip_credentials_validation": true,
                "max_retries": -1,
                "allowed_account_ids": ["123456789012"],
                "default_tags": [{"tags": {"team": "sre", "cost-center": 42.50}}],
                "endpoints": [{"ec2": "http://127.0.0.1:4566"}]
            }"#,
        )
        .unwrap();
        assert_eq!(Value::Object(blocks[0].arguments.clone()), expected);
        assert_eq!(blocks[0].skipped, vec!["endpoints.rds", "profile"]);
        // The number keeps its spelling.
        assert_eq!(
            blocks[0].arguments["default_tags"][0]["tags"]["cost-center"].to_string(),
            "42.50"
        );
        assert_eq!(blocks[1].config_name(), "aws.west");
        assert_eq!(
            Value::Object(blocks[1].arguments.clone()),
            json!({"region": "us-west-2"})
        );
    }

    #[test]
    fn reads_the_json_syntax_with_templates_skipped() {
        let blocks = blocks_of(
            "providers.tf.json",
            r#"{"provider": {"aws": [{"region": "eu-west-1", "profile": "${var.p}"}, {"alias": "b", "region": "eu-west-2"}]}}"#,
        );
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].skipped, vec!["profile"]);
        assert_eq!(blocks[0].arguments["region"], "eu-west-1");
        assert_eq!(blocks[1].config_name(), "aws.b");
    }

    #[test]
    fn variables_and_locals_are_evaluated_and_what_needs_terraform_is_still_skipped() {
        let folder = tempfile::tempdir().unwrap();
        fs::write(
            folder.path().join("main.tf"),
            r#"
variable "region" { default = "eu-west-1" }
variable "profile" {}
locals { endpoint = "http://127.0.0.1:${var.port}" }
variable "port" { type = number }
provider "aws" {
  region  = var.region
  profile = "${var.profile}-x"
  endpoints { ec2 = local.endpoint }
  token   = data.vault_generic_secret.aws.data["token"]
  max_retries = 3
}
"#,
        )
        .unwrap();
        fs::write(
            folder.path().join("extra.tf.json"),
            r#"{"provider": {"google": {"project": "${var.profile}", "zone": "${data.x.y}"}}}"#,
        )
        .unwrap();
        let inputs = crate::values::Inputs {
            vars: vec!["profile=ops".into()],
            env: vec![("port".into(), "4566".into())],
            ..Default::default()
        };
        let root = Module::read(folder.path()).unwrap();
        let values = Values::load(&root, &inputs).unwrap();
        let blocks = read_provider_blocks(&root, &values).unwrap();
        assert_eq!(
            Value::Object(blocks[1].arguments.clone()),
            json!({
                "region": "eu-west-1",
                "profile": "ops-x",
                "endpoints": [{"ec2": "http://127.0.0.1:4566"}],
                "max_retries": 3
            })
        );
        assert_eq!(blocks[1].skipped, vec!["token"]);
        assert_eq!(blocks[0].arguments["project"], "ops");
        assert_eq!(blocks[0].skipped, vec!["zone"]);
    }

    #[test]
    fn a_provider_block_without_a_name_is_one_clear_error() {
        let folder = tempfile::tempdir().unwrap();
        fs::write(folder.path().join("main.tf"), "\nprovider {\n}\n").unwrap();
        let error = read_provider_blocks(&Module::read(folder.path()).unwrap(), &Values::empty())
            .unwrap_err();
        assert!(
            error
                .message
                .ends_with("main.tf:2: a `provider` block needs one label, the provider's name"),
            "{}",
            error.message
        );
    }
}
