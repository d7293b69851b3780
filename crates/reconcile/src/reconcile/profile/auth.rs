//! How a profile authenticates, by name and settings only: the profile says which scheme and where the
//! credentials are (environment variable names, an OCI config profile); `reconcile::credentials`
//! reads them and `statectl_net::oci` signs. A profile never holds a secret itself, so profile files
//! can be shared and checked in.

/// A profile's authentication scheme and its settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    None,
    /// `Authorization: Bearer <token>`, the token read from `token_env`.
    Bearer {
        token_env: String,
    },
    /// HTTP Basic, user name and password read from the environment.
    Basic {
        username_env: String,
        password_env: String,
    },
    /// An API key in a header of its own (`X-Api-Key: <value>`), read from `value_env`.
    Header {
        name: String,
        value_env: String,
    },
    /// OCI's HTTP signatures with an API key from an OCI config file (`~/.oci/config` unless
    /// `config_file` says otherwise), profile `DEFAULT` unless `config_profile` says otherwise.
    OciSignature {
        config_file: Option<String>,
        config_profile: Option<String>,
    },
}

impl Auth {
    /// The scheme names the format accepts, in the order the docs list them.
    pub const SCHEMES: [&'static str; 5] = ["oci-signature", "bearer", "basic", "header", "none"];

    pub fn scheme(&self) -> &'static str {
        match self {
            Auth::None => "none",
            Auth::Bearer { .. } => "bearer",
            Auth::Basic { .. } => "basic",
            Auth::Header { .. } => "header",
            Auth::OciSignature { .. } => "oci-signature",
        }
    }

    /// The header this scheme sets, which a request's own `headers` may not set too.
    pub fn header(&self) -> Option<&str> {
        match self {
            Auth::None => None,
            Auth::Header { name, .. } => Some(name),
            Auth::Bearer { .. } | Auth::Basic { .. } | Auth::OciSignature { .. } => {
                Some("Authorization")
            }
        }
    }

    /// The settings each scheme takes (required first), for validation and messages.
    pub fn settings(scheme: &str) -> (&'static [&'static str], &'static [&'static str]) {
        match scheme {
            "bearer" => (&["token_env"], &[]),
            "basic" => (&["username_env", "password_env"], &[]),
            "header" => (&["header", "value_env"], &[]),
            "oci-signature" => (&[], &["config_file", "config_profile"]),
            _ => (&[], &[]),
        }
    }
}
