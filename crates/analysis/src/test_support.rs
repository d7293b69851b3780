//! What the unit tests of several modules share: reading the bundled test states.

/// The bytes of `testdata/scan/NAME`, a state file bundled with the repository.
pub(crate) fn scan_fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/scan")
            .join(name),
    )
    .unwrap()
}
