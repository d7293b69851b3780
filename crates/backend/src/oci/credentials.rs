//! The API key the `oci` backend signs with, found where Terraform's backend finds it: the backend's
//! arguments (`tenancy_ocid`, `user_ocid`, `fingerprint`, `private_key` or `private_key_path`,
//! `region`) first, then the OCI config file's profile (`config_file_profile`, else `DEFAULT`, in
//! `~/.oci/config`, else the file `OCI_CONFIG_FILE` or `OCI_CLI_CONFIG_FILE` names), then the
//! `TF_VAR_*` variables the OCI SDK's default provider reads; with `auth = "SecurityToken"`, the
//! session profile's token and key. The config file and the signature are
//! statectl-reconcile's, as refresh uses them. Messages name the key by fingerprint and profile,
//! never by its contents.

use std::path::{Path, PathBuf};

use statectl_net::Secret;
use statectl_net::oci::config::{self as oci_config, OciProfile};
use statectl_net::oci::signature::OciSigner;
use statectl_state::state::store::StoreError;

use super::settings::Settings;

/// Why the profile of the OCI config file could not be read.
#[derive(Debug, thiserror::Error)]
enum ProfileError {
    #[error("{}: {source}", .file.display())]
    Unreadable {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Invalid(#[from] oci_config::OciConfigError),
}

/// The signer, the region it found, and how to name the key in messages.
pub(crate) struct Key {
    pub signer: OciSigner,
    pub region: Option<String>,
    /// `fingerprint 12:34:.. of profile DEFAULT in /home/ana/.oci/config`.
    pub described: String,
}

crate::debug::shown_in_debug!(Key: described);

/// The config file Terraform's backend reads: `<home>/.oci/config` (home: `OCI_HOME_OVERRIDE`, else
/// `HOME`), else the one the SDK's or the CLI's variable names.
fn config_file(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let home = env("OCI_HOME_OVERRIDE").or_else(|| env("HOME"));
    if let Some(home) = home {
        let file = Path::new(&home).join(".oci").join("config");
        if file.is_file() {
            return Some(file);
        }
    }
    env("OCI_CONFIG_FILE")
        .or_else(|| env("OCI_CLI_CONFIG_FILE"))
        .map(PathBuf::from)
}

/// Finds and loads the key for `settings`; `location` starts every message.
pub(crate) fn load(
    settings: &Settings,
    location: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Key, StoreError> {
    let auth = &settings.auth;
    if auth.session {
        return load_session(settings, location, env);
    }
    let profile_name = auth.profile.clone().unwrap_or_else(|| "DEFAULT".to_owned());
    let from_arguments = auth.tenancy.is_some()
        && auth.user.is_some()
        && auth.fingerprint.is_some()
        && (auth.private_key.is_some() || auth.private_key_path.is_some());
    let file = config_file(env);
    // A named profile must exist, as Terraform's `checkProfile` insists; `DEFAULT` may be absent
    // when the arguments or the variables give the rest.
    let profile: Option<Result<OciProfile, ProfileError>> = if from_arguments {
        None
    } else {
        file.as_ref().map(|file| {
            let text = statectl_state::state::bytes::read_text(file).map_err(|source| {
                ProfileError::Unreadable {
                    file: file.clone(),
                    source,
                }
            })?;
            Ok(oci_config::parse(&text, file, &profile_name)?)
        })
    };
    let loaded = match &profile {
        Some(Ok(profile)) => Some(profile),
        Some(Err(problem)) if auth.profile.is_some() => {
            return Err(
                StoreError::new(format!("{location}: cannot sign requests: {problem}"))
                    .with_hint("check `config_file_profile` and the OCI config file"),
            );
        }
        _ => None,
    };
    let tf_var = |name: &str| env(&format!("TF_VAR_{name}"));
    let pick = |argument: &Option<String>, from_profile: Option<&String>, variable: &str| {
        argument
            .clone()
            .or_else(|| from_profile.cloned())
            .or_else(|| tf_var(variable))
    };
    let tenancy = pick(&auth.tenancy, loaded.map(|p| &p.tenancy), "tenancy_ocid");
    let user = pick(&auth.user, loaded.map(|p| &p.user), "user_ocid");
    let fingerprint = pick(
        &auth.fingerprint,
        loaded.map(|p| &p.fingerprint),
        "fingerprint",
    );
    let region = settings
        .region
        .clone()
        .or_else(|| loaded.and_then(|p| p.region.clone()))
        .or_else(|| tf_var("region"));
    let key_path = auth
        .private_key_path
        .clone()
        .map(|path| expand(&path, env))
        .or_else(|| loaded.map(|p| p.key_file.clone()))
        .or_else(|| tf_var("private_key_path").map(|path| expand(&path, env)));
    let pem = read_key(auth.private_key.as_deref(), key_path.as_deref(), location)?;
    let (Some(tenancy), Some(user), Some(fingerprint), Some((pem, key_source))) =
        (tenancy, user, fingerprint, pem)
    else {
        let why = match (&profile, &file) {
            (Some(Err(problem)), _) => problem.to_string(),
            (_, None) => "no OCI config file (~/.oci/config, OCI_CONFIG_FILE)".to_owned(),
            _ => "the profile and the arguments leave parts of the key out".to_owned(),
        };
        return Err(StoreError::new(format!(
            "{location}: no OCI API key to sign requests with: {why}"
        ))
        .with_hint("give a profile in ~/.oci/config (`config_file_profile`), or `tenancy_ocid`, `user_ocid`, `fingerprint` and `private_key_path`"));
    };
    let described = match (&loaded, &file) {
        (Some(_), Some(file)) if auth.fingerprint.is_none() => {
            format!(
                "fingerprint {fingerprint} of profile {profile_name} in {}",
                file.display()
            )
        }
        _ => format!("fingerprint {fingerprint}"),
    };
    let encrypted = pem.contains("ENCRYPTED");
    let signer = OciSigner::from_pem(format!("{tenancy}/{user}/{fingerprint}"), &Secret::new(pem))
        .map_err(|error| {
            let message = format!("{location}: cannot sign requests with {key_source} ({described}): {error}");
            if encrypted || auth.private_key_password.is_some() {
                StoreError::new(message).with_hint(
                    "statectl reads unencrypted keys only: `openssl rsa -in KEY -out KEY.plain` writes one (keep it private)",
                )
            } else {
                StoreError::new(message)
            }
        })?;
    Ok(Key {
        signer,
        region,
        described,
    })
}

/// `auth = "SecurityToken"`: the session profile of `<home>/.oci/config` (the file Terraform reads
/// for it), its token as the `keyId` (`ST$<token>`) and its key; the region is the backend's.
fn load_session(
    settings: &Settings,
    location: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Key, StoreError> {
    // Checked when the settings were read: a session needs a profile.
    let name = settings.auth.profile.clone().unwrap_or_default();
    let hint = "`oci session authenticate` (or `oci session refresh`) writes the session profile";
    let file = config_file(env).ok_or_else(|| {
        StoreError::new(format!(
            "{location}: no session to sign requests with: no OCI config file (~/.oci/config, OCI_CONFIG_FILE)"
        ))
        .with_hint(hint)
    })?;
    let failed = |problem: String| {
        StoreError::new(format!(
            "{location}: cannot sign requests with session profile {name}: {problem}"
        ))
        .with_hint(hint)
    };
    let text = statectl_state::state::bytes::read_text(&file)
        .map_err(|error| failed(format!("{}: {error}", file.display())))?;
    let session = oci_config::parse_session(&text, &file, &name)
        .map_err(|error| failed(error.to_string()))?;
    let token = statectl_state::state::bytes::read_text(&session.token_file)
        .map_err(|error| failed(format!("{}: {error}", session.token_file.display())))?;
    let pem = statectl_state::state::bytes::read_text(&session.key_file)
        .map_err(|error| failed(format!("{}: {error}", session.key_file.display())))?;
    // The session token is the keyId every request carries: a credential.
    statectl_net::secrets::register(token.trim());
    let described = format!("the session of profile {name} in {}", file.display());
    let signer = OciSigner::from_pem(format!("ST${}", token.trim()), &Secret::new(pem))
        .map_err(|error| failed(format!("{}: {error}", session.key_file.display())))?;
    Ok(Key {
        signer,
        region: settings.region.clone().or(session.region),
        described,
    })
}

/// The PEM and where it came from: `private_key` (with `\n` spelled out or not), else the file.
fn read_key(
    inline: Option<&str>,
    path: Option<&Path>,
    location: &str,
) -> Result<Option<(String, String)>, StoreError> {
    if let Some(pem) = inline {
        return Ok(Some((pem.replace("\\n", "\n"), "`private_key`".to_owned())));
    }
    let Some(path) = path else {
        return Ok(None);
    };
    let text = statectl_state::state::bytes::read_text(path).map_err(|error| {
        StoreError::new(format!(
            "{location}: cannot read the OCI API key {}: {error}",
            path.display()
        ))
        .with_hint("check `private_key_path` (or the profile's `key_file`)")
    })?;
    Ok(Some((text, path.display().to_string())))
}

/// `~/x` under the home Terraform uses (`OCI_HOME_OVERRIDE`, else `HOME`).
fn expand(path: &str, env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    match (
        path.strip_prefix("~/"),
        env("OCI_HOME_OVERRIDE").or_else(|| env("HOME")),
    ) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::config::BackendConfig;

    use crate::oci::tests::{PRIVATE_KEY, key_file};

    fn settings(values: serde_json::Value) -> Settings {
        let config = BackendConfig::for_tests("oci", values);
        Settings::read(&config, &|_| None).unwrap()
    }

    /// The key for the settings `values` of the state `oci://n/b/k`, the environment `env`.
    fn load_for(
        values: serde_json::Value,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Key, StoreError> {
        load(&settings(values), "oci://n/b/k", env)
    }

    /// A home folder with these `files` (paths relative to it), and the environment naming it.
    fn home_with(files: &[(&str, &str)]) -> (tempfile::TempDir, impl Fn(&str) -> Option<String>) {
        let home = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = home.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let env = env_of(vec![("HOME", home.path().display().to_string())]);
        (home, env)
    }

    /// `key` signs a request with the key id `id`.
    fn assert_signs_as(key: &Key, id: &str) {
        let signed = key.signer.sign("GET", "h", "/", "d", None);
        assert!(
            signed
                .authorization
                .expose_str()
                .contains(&format!("keyId=\"{id}\"")),
            "not signed as {id}"
        );
    }

    fn env_of(pairs: Vec<(&'static str, String)>) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.clone())
        }
    }

    #[test]
    fn a_profile_gives_what_the_arguments_leave_out() {
        let (_home, env) = home_with(&[
            (".oci/key.pem", PRIVATE_KEY),
            (
                ".oci/config",
                "[DEFAULT]\nuser=u0\nfingerprint=00\ntenancy=t\nkey_file=key.pem\n[CI]\nuser=u1\nfingerprint=11\nregion=eu-frankfurt-1\n",
            ),
        ]);
        let key = load_for(
            json!({"bucket": "b", "namespace": "n", "config_file_profile": "CI"}),
            &env,
        )
        .unwrap();
        assert_eq!(key.region.as_deref(), Some("eu-frankfurt-1"));
        assert!(
            key.described
                .starts_with("fingerprint 11 of profile CI in "),
            "{}",
            key.described
        );
        assert_signs_as(&key, "t/u1/11");

        let error = load_for(
            json!({"bucket": "b", "namespace": "n", "config_file_profile": "PROD"}),
            &env,
        )
        .unwrap_err();
        assert!(
            error
                .message
                .contains("no profile `PROD` (profiles: CI, DEFAULT)"),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_session_signs_with_its_token_as_the_key_id() {
        let (home, env) = home_with(&[
            (".oci/sessions/dev/key.pem", PRIVATE_KEY),
            (".oci/sessions/dev/token", "eyJ.token\n"),
            (
                ".oci/config",
                "[dev]\nfingerprint=aa\ntenancy=t\nregion=r\nkey_file=sessions/dev/key.pem\nsecurity_token_file=sessions/dev/token\n",
            ),
        ]);
        let key = load_for(json!({"bucket": "b", "namespace": "n", "auth": "SecurityToken", "config_file_profile": "dev", "region": "eu-paris-1"}), &env)
        .unwrap();
        assert_eq!(key.region.as_deref(), Some("eu-paris-1"));
        assert!(
            key.described.starts_with("the session of profile dev in "),
            "{}",
            key.described
        );
        assert_signs_as(&key, "ST$eyJ.token");
        std::fs::remove_file(home.path().join(".oci/sessions/dev/token")).unwrap();
        let error = load_for(json!({"bucket": "b", "namespace": "n", "auth": "SecurityToken", "config_file_profile": "dev", "region": "r"}), &env)
        .unwrap_err();
        assert!(
            error
                .message
                .starts_with("oci://n/b/k: cannot sign requests with session profile dev: "),
            "{}",
            error.message
        );
        assert!(error.hint.unwrap().contains("oci session authenticate"));
    }

    #[test]
    fn arguments_alone_need_no_file_and_no_key_is_one_line() {
        let (_folder, path) = key_file();
        let key = load_for(json!({"bucket": "b", "namespace": "n", "tenancy_ocid": "t", "user_ocid": "u", "fingerprint": "ff", "private_key_path": path.display().to_string(), "region": "r"}), &|_| None)
        .unwrap();
        assert_eq!(key.described, "fingerprint ff");
        let error = load_for(json!({"bucket": "b", "namespace": "n"}), &|_| None).unwrap_err();
        assert_eq!(
            error.message,
            "oci://n/b/k: no OCI API key to sign requests with: no OCI config file (~/.oci/config, OCI_CONFIG_FILE)"
        );
        let error = load_for(json!({"bucket": "b", "namespace": "n", "tenancy_ocid": "t", "user_ocid": "u", "fingerprint": "ff", "private_key": "-----BEGIN RSA PRIVATE KEY-----\\nProc-Type: 4,ENCRYPTED\\nsecretbytes\\n-----END RSA PRIVATE KEY-----"}), &|_| None)
        .unwrap_err();
        assert!(
            error.message.contains("not an unencrypted RSA private key"),
            "{}",
            error.message
        );
        assert!(!error.message.contains("secretbytes"));
        assert!(error.hint.unwrap().contains("openssl rsa"));
    }
}
