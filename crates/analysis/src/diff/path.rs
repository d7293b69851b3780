//! Attribute paths: the steps from an instance's `attributes` to a value, printed the way Terraform
//! writes references (`tags.Name`, `ebs_block_device[0].size`, `tags["has space"]`), and matched
//! against `sensitive_attributes` paths.

use std::fmt;

use statectl_state::state::sensitive;

pub use statectl_state::json::Step;

/// A path from the attributes object; empty is the attributes object itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Path(pub Vec<Step>);

impl Path {
    /// How a sensitive path relates to this one, for masking the values found here.
    ///
    /// A dynamic-typed attribute (`terraform_data.input`) is written as `{"value": V, "type": T}`
    /// while its sensitive paths step straight into V, so a `value` step here may be stepped over;
    /// where that reading is wrong it masks more, never less.
    pub fn sensitivity(&self, secret: &[sensitive::CtyStep]) -> Sensitivity {
        let mut inside = Vec::new();
        if covers(&self.0, secret, &mut inside) {
            Sensitivity::Whole
        } else if inside.is_empty() {
            Sensitivity::None
        } else {
            Sensitivity::Inside(inside)
        }
    }
}

/// Whether `secret` covers `path` (is it or an ancestor); otherwise collects into `inside` what
/// remains of `secret` below `path` when it leads further down.
fn covers(
    path: &[Step],
    secret: &[sensitive::CtyStep],
    inside: &mut Vec<Vec<sensitive::CtyStep>>,
) -> bool {
    let Some((next, below)) = secret.split_first() else {
        return true;
    };
    let Some((first, rest)) = path.split_first() else {
        inside.push(secret.to_vec());
        return false;
    };
    if matches!(first, Step::Member(key) if key == "value") && covers(rest, secret, inside) {
        return true;
    }
    let same = match (first, next) {
        (
            Step::Member(key),
            sensitive::CtyStep::Attribute(name) | sensitive::CtyStep::Key(name),
        ) => key == name,
        (Step::Index(index), sensitive::CtyStep::Index(wanted)) => {
            u64::try_from(*index).is_ok_and(|index| index == *wanted)
        }
        _ => false,
    };
    same && covers(rest, below, inside)
}

/// Whether a sensitive path covers the value at a path.
#[derive(Debug, PartialEq, Eq)]
pub enum Sensitivity {
    /// Unrelated paths.
    None,
    /// The path or one of its ancestors is sensitive: the whole value is secret.
    Whole,
    /// Something inside the value is sensitive, at these paths below it.
    Inside(Vec<Vec<sensitive::CtyStep>>),
}

impl fmt::Display for Path {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (position, step) in self.0.iter().enumerate() {
            match step {
                Step::Member(key) if is_identifier(key) => {
                    if position > 0 {
                        formatter.write_str(".")?;
                    }
                    formatter.write_str(key)?;
                }
                // JSON's string escapes are HCL's for everything a key can hold, control characters
                // included, so the printed path is always one safe line.
                Step::Member(key) => write!(
                    formatter,
                    "[{}]",
                    serde_json::to_string(key).expect("strings serialize")
                )?,
                Step::Index(index) => write!(formatter, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// An HCL identifier (ASCII subset): a letter or `_`, then letters, digits, `_` and `-`.
fn is_identifier(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

#[cfg(test)]
mod tests {
    use super::{Path, Sensitivity, Step};
    use statectl_state::state::sensitive;

    fn key(text: &str) -> Step {
        Step::Member(text.to_owned())
    }

    #[test]
    fn prints_terraform_reference_syntax() {
        let cases = [
            (vec![key("tags"), key("Name")], "tags.Name"),
            (
                vec![key("ebs_block_device"), Step::Index(0), key("size")],
                "ebs_block_device[0].size",
            ),
            (vec![key("tags"), key("has space")], r#"tags["has space"]"#),
            (vec![key("tags"), key("a.b")], r#"tags["a.b"]"#),
            (vec![key("tags"), key("9lives")], r#"tags["9lives"]"#),
            (vec![key("tags"), key("")], r#"tags[""]"#),
            (vec![key("quote\"d\n")], r#"["quote\"d\n"]"#),
            (vec![key("kebab-case_ok")], "kebab-case_ok"),
            (vec![Step::Index(3)], "[3]"),
            (vec![key("a"), Step::Index(1), Step::Index(2)], "a[1][2]"),
            (vec![], ""),
        ];
        for (steps, printed) in cases {
            assert_eq!(Path(steps).to_string(), printed);
        }
    }

    /// Each case's path checked against the one sensitive path `secret`; a failure names the path.
    fn assert_sensitivity(secret: &[sensitive::CtyStep], cases: Vec<(Vec<Step>, Sensitivity)>) {
        for (steps, expected) in cases {
            let path = Path(steps);
            assert_eq!(path.sensitivity(secret), expected, "{path}");
        }
    }

    #[test]
    fn a_sensitive_ancestor_covers_the_whole_value() {
        use sensitive::CtyStep::{Attribute, Index, Key};
        assert_sensitivity(
            &[Attribute("input".into()), Key("password".into())],
            vec![
                (vec![key("input"), key("password")], Sensitivity::Whole),
                (
                    vec![key("input"), key("password"), Step::Index(0)],
                    Sensitivity::Whole,
                ),
                (
                    vec![key("input")],
                    Sensitivity::Inside(vec![vec![Key("password".into())]]),
                ),
                (vec![key("input"), key("user")], Sensitivity::None),
                (vec![key("output")], Sensitivity::None),
            ],
        );
        assert_sensitivity(
            &[Attribute("hosts".into()), Index(1)],
            vec![
                (vec![key("hosts"), Step::Index(1)], Sensitivity::Whole),
                (vec![key("hosts"), Step::Index(0)], Sensitivity::None),
            ],
        );
    }

    #[test]
    fn a_secret_inside_a_dynamic_value_is_found_through_its_wrapper() {
        use sensitive::CtyStep::Attribute;
        // `terraform_data.input` holds `{"value": {...}, "type": [...]}`; Terraform's path skips
        // the wrapper.
        assert_sensitivity(
            &[Attribute("input".into()), Attribute("password".into())],
            vec![
                (
                    vec![key("input"), key("value"), key("password")],
                    Sensitivity::Whole,
                ),
                (
                    vec![key("input"), key("value")],
                    Sensitivity::Inside(vec![vec![Attribute("password".into())]]),
                ),
                (
                    vec![key("input"), key("type"), key("password")],
                    Sensitivity::None,
                ),
            ],
        );
    }
}
