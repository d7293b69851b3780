//! The run's secrets and the masks every output goes through. A credential is registered the moment
//! it is read or derived (a token from a variable or a token endpoint, a key from a file, a
//! passphrase, a password inside a URL, a request's signature); from then on every string statectl
//! prints, logs, or puts in a report is masked against the set, as CI systems mask the secrets they
//! were given. On top of that, the pattern masks ([`mask_message`]) hide what has the shape of a
//! credential in messages (a URL's userinfo, `Bearer ...`, `signature="..."`, `sig=`, a PEM private
//! key), for credentials that were never in statectl's hands (a server's own echo of a key it
//! generated).
//!
//! The API is small on purpose, so that every crate that reads a credential can register it in one
//! call:
//! - [`register`] a text credential (a token, a password, a passphrase, a SAS token, a PEM key);
//! - [`register_bytes`] binary key material (registered by the spellings it takes in text: base64,
//!   base64url, hex);
//! - [`register_url`] the password (and user:password) inside a URL;
//! - [`register_ephemeral`] a value good for one request only (a request signature): the last
//!   [`EPHEMERAL_KEPT`] are kept;
//! - [`mask`] data (tables, diffs, documents) against the registered secrets; [`mask_message`]
//!   messages (errors, hints, warnings, log lines, excerpts of a server's answer) against them and
//!   the patterns; [`holds_secret`] to refuse a value that must not be stored at all.
//!
//! What is too short to mask: a registered value shorter than [`SHORTEST`] characters is not
//! registered (GitLab refuses to mask variables under 8 characters for the same reason): masking
//! `abc` would put `***` into every address and path that holds those letters, so that no output
//! could be trusted, while telling nothing about the secret. Such short values are still hidden
//! where they have a credential's shape (the patterns), and a value's other spellings (percent- and
//! JSON-escaped) are registered beside it, so an echo in a URL or a JSON body is masked too.

mod patterns;
mod registry;
mod spellings;

use std::borrow::Cow;

pub use patterns::mask_patterns;
pub use registry::EPHEMERAL_KEPT;

/// What a masked secret shows.
pub const MASK: &str = "***";

/// The shortest value registered, in characters (see the module's documentation).
pub const SHORTEST: usize = 8;

/// Registers a text credential this run sends or derived, and its escaped spellings. Values
/// shorter than [`SHORTEST`] characters (after trimming) are not registered.
pub fn register(secret: &str) {
    registry::global().register_lasting(spellings::of_text(secret.trim()));
}

/// Registers binary key material by the spellings it takes in text (base64 with and without
/// padding, base64url, hex), and as text when it is UTF-8.
pub fn register_bytes(key: &[u8]) {
    registry::global().register_lasting(spellings::of_bytes(key));
}

/// Registers the password, and the `user:password` pair, that a URL carries (nothing when it has
/// none). The URL itself is not registered: its host and path are no secret.
pub fn register_url(url: &str) {
    let found = spellings::userinfo(url);
    for value in found {
        register(&value);
    }
}

/// Registers a value that is good for one request only (a signature): kept among the last
/// [`EPHEMERAL_KEPT`] such values, which is more than the requests a run has in flight at once.
pub fn register_ephemeral(secret: &str) {
    registry::global().register_ephemeral(spellings::of_text(secret.trim()));
}

/// `text` with every registered secret replaced by [`MASK`]; borrowed when nothing matched. For
/// data: tables, diffs, documents (the pattern masks would change a state's own values).
pub fn mask(text: &str) -> Cow<'_, str> {
    registry::global().mask(text)
}

/// [`mask`], then the pattern masks: for messages, hints, warnings, log lines and excerpts of a
/// server's answers, whose text may echo what was sent.
pub fn mask_message(text: &str) -> Cow<'_, str> {
    match mask(text) {
        Cow::Borrowed(text) => mask_patterns(text),
        Cow::Owned(text) => Cow::Owned(mask_patterns(&text).into_owned()),
    }
}

/// Whether `text` holds a registered secret (a value that must not be stored).
pub fn holds_secret(text: &str) -> bool {
    registry::global().holds(text)
}

#[cfg(test)]
mod tests;
