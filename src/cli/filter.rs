//! Address filters for `list`: a Terraform address (a module contains its resources, a resource its
//! instances, as `terraform state list ADDRESS` reads it) or a glob with `*` and `?`.

use crate::cli::error::CliError;
use crate::state::address::{InstanceAddr, Target};

#[derive(Debug)]
pub enum Pattern {
    Address(Target),
    Glob(Vec<char>),
}

impl Pattern {
    pub fn parse(text: &str) -> Result<Pattern, CliError> {
        if text.contains(['*', '?']) {
            return Ok(Pattern::Glob(text.chars().collect()));
        }
        text.parse::<Target>().map(Pattern::Address).map_err(|error| {
            CliError::new(format!("invalid address `{}`: {error}", error::sanitize(text)))
                .with_hint("use an address such as `module.app`, `aws_instance.web` or `aws_instance.web[0]`, or a glob such as `*_bucket.*`")
        })
    }

    pub fn matches(&self, address: &InstanceAddr, printed: &str) -> bool {
        match self {
            Pattern::Address(target) => target.matches(address),
            Pattern::Glob(glob) => glob_matches(glob, &printed.chars().collect::<Vec<_>>()),
        }
    }
}

use crate::cli::error;

/// Wildcard matching where `*` matches any run of characters (dots and brackets too) and `?` one.
fn glob_matches(pattern: &[char], text: &[char]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            backtrack = Some((p, t));
            p += 1;
        } else if let Some((star, matched)) = backtrack {
            p = star + 1;
            t = matched + 1;
            backtrack = Some((star, matched + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&character| character == '*')
}

#[cfg(test)]
mod tests {
    use super::glob_matches;

    fn glob(pattern: &str, text: &str) -> bool {
        glob_matches(
            &pattern.chars().collect::<Vec<_>>(),
            &text.chars().collect::<Vec<_>>(),
        )
    }

    #[test]
    fn globs_match_across_dots_and_brackets() {
        assert!(glob("*_bucket.*", "module.a.aws_s3_bucket.logs[\"x\"]"));
        assert!(glob("aws_instance.web[?]", "aws_instance.web[3]"));
        assert!(!glob("aws_instance.web[?]", "aws_instance.web[12]"));
        assert!(!glob("*.db", "aws_db_instance.main"));
    }
}
