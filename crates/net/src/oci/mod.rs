//! OCI's credentials as its SDKs read and use them: the config file's profiles (`config`) and the
//! API-key request signature (`signature`), shared by refresh's profiles and the oci backend.

pub mod config;
pub mod signature;
