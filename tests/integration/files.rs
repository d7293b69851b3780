//! Scratch folders and the files the tests put in them (a state, a rules file, a Terraform CLI
//! configuration) or list afterwards.

use std::path::{Path, PathBuf};

/// A temporary folder holding `bytes` as its `terraform.tfstate`, and that file's path.
pub(crate) fn folder_with_state(bytes: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("terraform.tfstate");
    std::fs::write(&path, bytes).unwrap();
    (folder, path)
}

/// A temporary folder holding a copy of `state` as its `terraform.tfstate`.
pub(crate) fn folder_with_copy(state: impl AsRef<Path>) -> tempfile::TempDir {
    folder_with_state(std::fs::read(state).unwrap()).0
}

/// A temporary folder holding one file, `name`, with `contents`.
pub(crate) fn folder_with(name: &str, contents: impl AsRef<[u8]>) -> tempfile::TempDir {
    file_with(name, contents).0
}

/// [`folder_with`], and the path of its file.
pub(crate) fn file_with(name: &str, contents: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(name);
    std::fs::write(&path, contents).unwrap();
    (folder, path)
}

/// The AWS stack of `testdata/<configuration>` in `folder`: its `main.tf`, and the one provider
/// configuration pointed at moto that every AWS stack shares (`testdata/aws/moto.tf`).
pub(crate) fn copy_aws_stack(configuration: &str, folder: &Path) {
    let testdata = crate::builder::root().join("testdata");
    for (from, to) in [
        (testdata.join(configuration).join("main.tf"), "main.tf"),
        (testdata.join("aws/moto.tf"), "moto.tf"),
    ] {
        std::fs::copy(&from, folder.join(to)).unwrap();
    }
}

/// Writes `text` to `path` as a program anyone may run (mode 755): the stand-in tools the tests put
/// on `PATH` or in a plugin folder.
pub(crate) fn write_script(path: &Path, text: impl AsRef<[u8]>) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// The name of every entry of `folder`, sorted.
pub(crate) fn file_names(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A Terraform CLI configuration that installs the providers of `include` (a source address) from
/// the filesystem mirror at `mirror`, written to `path`.
pub(crate) fn write_mirror_config(path: &Path, mirror: &Path, include: &str) {
    std::fs::write(
        path,
        format!(
            "provider_installation {{\n  filesystem_mirror {{\n    path    = \"{}\"\n    include = [\"{include}\"]\n  }}\n}}\n",
            mirror.display()
        ),
    )
    .unwrap();
}
