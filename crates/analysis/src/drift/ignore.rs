//! Drift ignores: `TYPE.PATH` patterns (`aws_instance.tags.LastScanned`, `*.tags_all.*`), globs in
//! both parts, from `--ignore` or `[[drift.ignore]]` in `.statectl.toml` (where a `reason` is
//! required). A pattern matches an attribute path or anything below it: `aws_instance.tags` ignores
//! every tag. A path part that matches the empty path (`*`) covers the whole object, so
//! `aws_s3_bucket.*` also ignores a bucket deleted outside Terraform.

use serde::Deserialize;

use crate::diff::Path;
use crate::glob::Glob;

/// One `[[drift.ignore]]` table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IgnoreFile {
    pub(crate) attribute: String,
    pub(crate) reason: String,
}

/// One ignore rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignore {
    /// The pattern as given, for the report's counts.
    pub pattern: String,
    /// Why (required in the settings file; none for a flag).
    pub reason: Option<String>,
    type_glob: Glob,
    path_glob: Glob,
}

/// A pattern that is not `TYPE.PATH`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not TYPE.PATH: a resource type, a dot, an attribute path")]
pub struct IgnoreError(pub String);

impl Ignore {
    /// Parses `TYPE.PATH`: the type is everything before the first dot, which both parts need.
    pub fn parse(pattern: &str, reason: Option<String>) -> Result<Ignore, IgnoreError> {
        let Some((type_part, path_part)) = pattern.split_once('.') else {
            return Err(IgnoreError(pattern.to_owned()));
        };
        if type_part.is_empty() || path_part.is_empty() {
            return Err(IgnoreError(pattern.to_owned()));
        }
        Ok(Ignore {
            pattern: pattern.to_owned(),
            reason,
            type_glob: Glob::new(type_part),
            path_glob: Glob::new(path_part),
        })
    }

    /// Whether the rule covers the attribute at `path` of an instance of `type_name`: the path
    /// itself, or one of its ancestors.
    pub fn matches(&self, type_name: &str, path: &Path) -> bool {
        if !self.type_glob.matches(type_name) {
            return false;
        }
        (1..=path.0.len()).any(|length| {
            let prefix = Path(path.0[..length].to_vec());
            self.path_glob.matches(&prefix.to_string())
        })
    }
}

impl Ignore {
    /// Whether the rule covers a whole object of `type_name` (its path part matches the empty path,
    /// as `*` does): a deleted object is then not drift either.
    pub fn covers_object(&self, type_name: &str) -> bool {
        self.type_glob.matches(type_name) && self.path_glob.matches("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::Step;

    fn path(steps: &[&str]) -> Path {
        Path(
            steps
                .iter()
                .map(|step| match step.parse::<usize>() {
                    Ok(index) => Step::Index(index),
                    Err(_) => Step::Member((*step).to_owned()),
                })
                .collect(),
        )
    }

    #[test]
    fn globs_in_both_parts_cover_a_path_and_what_is_below_it() {
        let scanner = Ignore::parse("aws_instance.tags.LastScanned", None).unwrap();
        assert!(scanner.matches("aws_instance", &path(&["tags", "LastScanned"])));
        assert!(!scanner.matches("aws_instance", &path(&["tags", "Name"])));
        assert!(!scanner.matches("aws_s3_bucket", &path(&["tags", "LastScanned"])));
        let all = Ignore::parse("*.tags_all.*", None).unwrap();
        assert!(all.matches("aws_vpc", &path(&["tags_all", "Env"])));
        assert!(!all.matches("aws_vpc", &path(&["tags", "Env"])));
        let whole = Ignore::parse("aws_security_group.ingress", None).unwrap();
        assert!(whole.matches(
            "aws_security_group",
            &path(&["ingress", "0", "cidr_blocks", "1"])
        ));
        assert!(
            Ignore::parse("aws_s3_bucket.*", None)
                .unwrap()
                .covers_object("aws_s3_bucket")
        );
        assert!(!whole.covers_object("aws_security_group"));
        let indexed = Ignore::parse("aws_instance.ebs_block_device[*].tags", None).unwrap();
        assert!(indexed.matches(
            "aws_instance",
            &path(&["ebs_block_device", "2", "tags", "A"])
        ));
    }

    #[test]
    fn a_pattern_needs_a_type_and_a_path() {
        for bad in ["tags", ".tags", "aws_instance.", ""] {
            assert_eq!(
                Ignore::parse(bad, None).unwrap_err(),
                IgnoreError(bad.to_owned()),
                "{bad}"
            );
        }
    }
}
