//! A state's name as the CI formats give it (SARIF, GitHub annotations, GitLab Code Quality): a path
//! relative to the working directory (where a CI job checks the repository out), forward slashes, no
//! leading `./`, so that the finding is shown on the file in a pull or merge request and its
//! fingerprint is the same on every machine. URLs and `<stdin>` are kept as they are.

use std::path::{Component, Path};

/// The repository path of the state named `name`, given the working directory `cwd`.
pub(crate) fn repository_path(name: &str, cwd: Option<&Path>) -> String {
    if name.contains("://") || name == "<stdin>" {
        return name.to_owned();
    }
    let path = Path::new(name);
    let relative = match cwd {
        Some(cwd) if path.is_absolute() => path.strip_prefix(cwd).unwrap_or(path),
        _ => path,
    };
    let parts: Vec<String> = relative
        .components()
        .filter(|component| !matches!(component, Component::CurDir))
        .map(|component| match component {
            Component::RootDir => String::new(),
            other => other.as_os_str().to_string_lossy().into_owned(),
        })
        .collect();
    let joined = parts.join("/");
    if joined.is_empty() {
        name.to_owned()
    } else {
        joined
    }
}

/// What a fingerprint hashes for the state: its repository path, or for a file outside the working
/// directory only its name (an absolute path differs from one machine to the next).
pub(crate) fn fingerprint_path(repository_path: &str) -> &str {
    if repository_path.starts_with('/') {
        repository_path
            .rsplit('/')
            .next()
            .unwrap_or(repository_path)
    } else {
        repository_path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_checkout_with_forward_slashes() {
        let cwd = Path::new("/builds/team/infra");
        let path = |name| repository_path(name, Some(cwd));
        assert_eq!(path("states/prod.tfstate"), "states/prod.tfstate");
        assert_eq!(path("./states/prod.tfstate"), "states/prod.tfstate");
        assert_eq!(
            path("/builds/team/infra/states/prod.tfstate"),
            "states/prod.tfstate"
        );
        assert_eq!(path("/elsewhere/prod.tfstate"), "/elsewhere/prod.tfstate");
        assert_eq!(
            path("s3://bucket/env/prod.tfstate"),
            "s3://bucket/env/prod.tfstate"
        );
        assert_eq!(path("<stdin>"), "<stdin>");
        assert_eq!(fingerprint_path("/elsewhere/prod.tfstate"), "prod.tfstate");
        assert_eq!(
            fingerprint_path("states/prod.tfstate"),
            "states/prod.tfstate"
        );
    }
}
