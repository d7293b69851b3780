//! Why a flag's value is refused, for the value parsers clap calls: clap prints it after the
//! flag's name (`error: invalid value '0' for '--jobs <N>': must be at least 1`), exit 2.

/// A refused flag value.
#[derive(Debug, thiserror::Error)]
pub(super) enum FlagValueError {
    /// A count of workers of zero would never finish.
    #[error("must be at least 1")]
    Zero,
    #[error("{0}")]
    NotACount(#[from] std::num::ParseIntError),
    #[error("a provider name must come before `=`, e.g. `aws=plugin`")]
    ReaderWithoutProvider,
    #[error("`{0}` is not a reader: use `http` or `plugin`, for the run or as NAME=READER")]
    UnknownReader(String),
    #[error("expected NAME=FILE, e.g. `aws=aws-provider.json`")]
    NotNameEqualsFile,
    #[error("only `-` (standard output) is supported; to write another file, copy the state first")]
    OnlyStandardOutput,
}
