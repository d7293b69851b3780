//! Generates the gRPC clients for Terraform's plugin protocols 5 and 6 and go-plugin's own services
//! from the files in `proto/`. protox compiles them in pure Rust, so building statectl never needs a
//! `protoc` binary.

use std::error::Error;

const PROTOS: [&str; 3] = [
    "proto/tfplugin5.proto",
    "proto/tfplugin6.proto",
    "proto/go_plugin.proto",
];

fn main() -> Result<(), Box<dyn Error>> {
    for proto in PROTOS {
        println!("cargo:rerun-if-changed={proto}");
    }
    let descriptors = protox::compile(PROTOS, ["proto"])?;
    tonic_prost_build::configure()
        .build_server(false)
        .build_transport(false)
        .compile_fds(descriptors)?;
    Ok(())
}
