//! The OCI CLI/SDK configuration file (`~/.oci/config`, or `OCI_CLI_CONFIG_FILE`): an INI file of
//! profiles (`[DEFAULT]` and named ones) with `user`, `fingerprint`, `tenancy`, `region`, `key_file`
//! and `pass_phrase` (a session profile: `security_token_file` instead of `user`). Named profiles
//! inherit what they leave out from `[DEFAULT]`, as the SDKs do.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One resolved profile's fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciProfile {
    pub user: String,
    pub fingerprint: String,
    pub tenancy: String,
    pub region: Option<String>,
    pub key_file: PathBuf,
}

impl OciProfile {
    /// `tenancy/user/fingerprint`, the signature's `keyId`.
    pub fn key_id(&self) -> String {
        format!("{}/{}/{}", self.tenancy, self.user, self.fingerprint)
    }
}

/// An OCI config file that does not give the profile statectl needs; names the file (and line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OciConfigError {
    #[error("{}:{line}: expected `key = value`", file.display())]
    Syntax { file: PathBuf, line: usize },
    #[error("{}:{line}: a setting before any `[PROFILE]`", file.display())]
    Orphan { file: PathBuf, line: usize },
    #[error("{}: no profile `{name}` (profiles: {})", file.display(), known.join(", "))]
    NoProfile {
        file: PathBuf,
        name: String,
        known: Vec<String>,
    },
    #[error("{}: profile `{name}` has no `{key}`", file.display())]
    Missing {
        file: PathBuf,
        name: String,
        key: String,
    },
}

/// Reads profile `name` from the config file text; `file` names it in errors. `~/` in `key_file` is
/// the user's home, and a relative path is relative to the config file's folder.
pub fn parse(text: &str, file: &Path, name: &str) -> Result<OciProfile, OciConfigError> {
    let profile = Profile::read(text, file, name)?;
    let key_file = profile.path("key_file")?;
    Ok(OciProfile {
        user: profile.required("user")?,
        fingerprint: profile.required("fingerprint")?,
        tenancy: profile.required("tenancy")?,
        region: profile.lookup("region"),
        key_file,
    })
}

/// A session profile, as `oci session authenticate` writes it: a token in `security_token_file`
/// (the signature's `keyId` is `ST$<token>`) and the session's own `key_file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciSessionProfile {
    pub token_file: PathBuf,
    pub key_file: PathBuf,
    pub region: Option<String>,
}

/// Reads session profile `name`; paths resolve as [`parse`] resolves `key_file`.
pub fn parse_session(
    text: &str,
    file: &Path,
    name: &str,
) -> Result<OciSessionProfile, OciConfigError> {
    let profile = Profile::read(text, file, name)?;
    Ok(OciSessionProfile {
        token_file: profile.path("security_token_file")?,
        key_file: profile.path("key_file")?,
        region: profile.lookup("region"),
    })
}

/// One profile of a parsed file, with `[DEFAULT]` behind it.
struct Profile<'a> {
    sections: HashMap<String, HashMap<String, String>>,
    file: &'a Path,
    name: &'a str,
}

impl<'a> Profile<'a> {
    fn read(text: &str, file: &'a Path, name: &'a str) -> Result<Profile<'a>, OciConfigError> {
        let mut sections: HashMap<String, HashMap<String, String>> = HashMap::new();
        let mut current: Option<String> = None;
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if let Some(section) = line
                .strip_prefix('[')
                .and_then(|rest| rest.strip_suffix(']'))
            {
                current = Some(section.trim().to_owned());
                sections.entry(section.trim().to_owned()).or_default();
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(OciConfigError::Syntax {
                    file: file.to_owned(),
                    line: index + 1,
                });
            };
            let Some(section) = &current else {
                return Err(OciConfigError::Orphan {
                    file: file.to_owned(),
                    line: index + 1,
                });
            };
            sections
                .get_mut(section)
                .expect("the section was inserted when it opened")
                .insert(key.trim().to_owned(), value.trim().to_owned());
        }
        if !sections.contains_key(name) {
            let mut known: Vec<String> = sections.keys().cloned().collect();
            known.sort();
            return Err(OciConfigError::NoProfile {
                file: file.to_owned(),
                name: name.to_owned(),
                known,
            });
        }
        Ok(Profile {
            sections,
            file,
            name,
        })
    }

    fn lookup(&self, key: &str) -> Option<String> {
        self.sections
            .get(self.name)
            .and_then(|section| section.get(key))
            .or_else(|| {
                self.sections
                    .get("DEFAULT")
                    .and_then(|section| section.get(key))
            })
            .cloned()
    }

    fn required(&self, key: &str) -> Result<String, OciConfigError> {
        self.lookup(key).ok_or_else(|| OciConfigError::Missing {
            file: self.file.to_owned(),
            name: self.name.to_owned(),
            key: key.to_owned(),
        })
    }

    /// A path setting: `~/` is the user's home, a relative path is relative to the file's folder.
    fn path(&self, key: &str) -> Result<PathBuf, OciConfigError> {
        let value = self.required(key)?;
        Ok(if let Some(rest) = value.strip_prefix("~/") {
            std::env::var_os("HOME").map_or_else(
                || PathBuf::from(&value),
                |home| PathBuf::from(home).join(rest),
            )
        } else {
            let path = PathBuf::from(&value);
            if path.is_relative() {
                self.file
                    .parent()
                    .map_or(path.clone(), |folder| folder.join(&path))
            } else {
                path
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = "[DEFAULT]\nuser=ocid1.user.oc1..aaa\nfingerprint=12:34:56\ntenancy=ocid1.tenancy.oc1..ttt\nregion=eu-frankfurt-1\nkey_file=keys/oci.pem\n\n# the CI profile overrides the user and region\n[CI]\nuser = ocid1.user.oc1..ci\nregion = us-ashburn-1\n";

    #[test]
    fn named_profiles_inherit_from_default() {
        let file = Path::new("/home/ana/.oci/config");
        let default = parse(CONFIG, file, "DEFAULT").unwrap();
        assert_eq!(
            default.key_id(),
            "ocid1.tenancy.oc1..ttt/ocid1.user.oc1..aaa/12:34:56"
        );
        assert_eq!(default.key_file, Path::new("/home/ana/.oci/keys/oci.pem"));
        let ci = parse(CONFIG, file, "CI").unwrap();
        assert_eq!(ci.user, "ocid1.user.oc1..ci");
        assert_eq!(ci.region.as_deref(), Some("us-ashburn-1"));
        assert_eq!(ci.fingerprint, "12:34:56");
    }

    #[test]
    fn a_session_profile_names_its_token_and_key() {
        let text = "[DEFAULT]\nregion=eu-frankfurt-1\n[dev]\nfingerprint=aa\ntenancy=t\nkey_file=sessions/dev/key.pem\nsecurity_token_file=sessions/dev/token\n";
        let session = parse_session(text, Path::new("/home/ana/.oci/config"), "dev").unwrap();
        assert_eq!(
            session.token_file,
            Path::new("/home/ana/.oci/sessions/dev/token")
        );
        assert_eq!(
            session.key_file,
            Path::new("/home/ana/.oci/sessions/dev/key.pem")
        );
        assert_eq!(session.region.as_deref(), Some("eu-frankfurt-1"));
        assert_eq!(
            parse_session("[dev]\nkey_file=k\n", Path::new("config"), "dev")
                .unwrap_err()
                .to_string(),
            "config: profile `dev` has no `security_token_file`"
        );
    }

    #[test]
    fn names_what_is_missing() {
        let file = Path::new("config");
        assert_eq!(
            parse(CONFIG, file, "PROD").unwrap_err().to_string(),
            "config: no profile `PROD` (profiles: CI, DEFAULT)"
        );
        assert_eq!(
            parse("[DEFAULT]\nuser=u\n", file, "DEFAULT")
                .unwrap_err()
                .to_string(),
            "config: profile `DEFAULT` has no `key_file`"
        );
        assert_eq!(
            parse("user=u\n", file, "DEFAULT").unwrap_err().to_string(),
            "config:1: a setting before any `[PROFILE]`"
        );
    }
}
