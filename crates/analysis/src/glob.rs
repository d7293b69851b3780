//! Wildcard patterns over addresses: `*` matches any run of characters (dots and brackets too), `?`
//! one character. Used by `list` filters and by scan ignores.

/// A compiled glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob(Vec<char>);

impl Glob {
    pub fn new(pattern: &str) -> Glob {
        Glob(pattern.chars().collect())
    }

    /// Does the pattern contain a wildcard at all?
    pub fn is_glob(pattern: &str) -> bool {
        pattern.contains(['*', '?'])
    }

    pub fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        let pattern = &self.0;
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
}

#[cfg(test)]
mod tests {
    use super::Glob;

    #[test]
    fn globs_match_across_dots_and_brackets() {
        assert!(Glob::new("*_bucket.*").matches("module.a.aws_s3_bucket.logs[\"x\"]"));
        assert!(Glob::new("aws_instance.web[?]").matches("aws_instance.web[3]"));
        assert!(!Glob::new("aws_instance.web[?]").matches("aws_instance.web[12]"));
        assert!(!Glob::new("*.db").matches("aws_db_instance.main"));
        assert!(Glob::new("module.legacy.*").matches("module.legacy.aws_instance.a"));
    }
}
