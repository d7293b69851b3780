//! statectl's integration tests: one binary (faster to build than one per file), one module per area.

// The crash tests say on stderr what they did (seed, counts); a failure shows it.
#![expect(
    clippy::print_stderr,
    reason = "the crash tests report their seed and counts on stderr"
)]

// First: the `statectl_snapshot!` macro is visible to the modules declared after it.
#[macro_use]
mod snapshot;

mod audit;
mod aws_stack;
mod azure_backend;
mod azure_credentials;
mod bad_input;
mod builder;
mod byte_for_byte;
mod ci_github;
mod ci_gitlab;
mod commands;
mod corpus;
mod deep;
mod diff;
mod discovery;
mod docs;
mod drift;
mod drift_hcp;
mod drift_oracle;
mod drift_stack;
mod drift_workspaces;
mod edges;
mod encryption;
mod exit_status;
mod files;
mod gcs_backend;
mod gcs_credentials;
mod generated;
mod hcp_backend;
mod help;
mod history;
mod hostile;
mod hostile_names;
mod http_backend;
mod jsonpath;
mod layers;
mod leaks;
mod legacy;
mod listings;
mod moto;
mod oci_backend;
mod oracle;
mod packaging;
mod plugin;
mod plugin_bad;
mod plugin_stack;
mod plugin_tf;
mod plugin_trust;
mod processes;
mod properties;
mod read_while_rewritten;
mod readme_demo;
mod refresh;
mod remote_refresh;
mod report_schema;
mod reports;
mod rewrite;
mod rewrite_crash;
mod rewrite_oracle;
mod s3_backend;
mod sarif_schema;
mod scan;
mod signals;
mod simulator;
mod skip;
mod snapshots;
mod splice_check;
mod stand_in;
mod workdir;
mod working_config;
mod writer;
