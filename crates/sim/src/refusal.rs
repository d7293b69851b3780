//! The one-line error of a parser or a check whose only content is its message: a lifecycle or a
//! duration that does not parse ([`crate::lifecycle::LifecycleError`]), a key or a signature that is
//! refused ([`crate::oci_signature::SignatureError`]).

/// What is wrong, in one line that names the step, key or header at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct Refusal {
    message: String,
}

impl From<String> for Refusal {
    fn from(message: String) -> Refusal {
        Refusal { message }
    }
}

impl From<&str> for Refusal {
    fn from(message: &str) -> Refusal {
        Refusal {
            message: message.to_owned(),
        }
    }
}
