//! statectl's integration tests: one binary (faster to build than one per file), one module per area.

mod bad_input;
mod builder;
mod commands;
mod corpus;
mod generated;
mod oracle;
mod writer;
