//! statectl's integration tests: one binary (faster to build than one per file), one module per area.

// Tests say on stderr why they skip (no corpus, no Terraform); that is their output to people.
#![expect(
    clippy::print_stderr,
    reason = "tests say on stderr why they skip (no corpus, no Terraform)"
)]

mod audit;
mod azure_backend;
mod bad_input;
mod builder;
mod byte_for_byte;
mod commands;
mod corpus;
mod diff;
mod discovery;
mod encryption;
mod gcs_backend;
mod generated;
mod hcp_backend;
mod hostile;
mod http_backend;
mod layers;
mod leaks;
mod legacy;
mod moto;
mod oci_backend;
mod oracle;
mod packaging;
mod plugin;
mod plugin_bad;
mod plugin_stack;
mod plugin_tf;
mod plugin_trust;
mod properties;
mod readme_demo;
mod refresh;
mod remote_refresh;
mod rewrite;
mod rewrite_crash;
mod rewrite_oracle;
mod s3_backend;
mod sarif_schema;
mod scan;
mod snapshots;
mod workdir;
mod writer;
