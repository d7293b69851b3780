//! A Terraform working folder with an AWS configuration applied in moto: real Terraform 1.15.5 and
//! the real AWS provider 3.39.0 (from the filesystem mirror scripts/install-aws-provider.sh makes)
//! against moto's server on loopback. The plugin reader's tests and drift's share it; each adds the
//! methods it needs in its own module.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::moto::{Moto, moto_server};
use crate::oracle::{aws_provider_mirror, run, terraform};

pub(crate) struct AwsStack {
    pub(crate) folder: tempfile::TempDir,
    pub(crate) terraform: PathBuf,
    pub(crate) moto: Moto,
}

impl AwsStack {
    /// `terraform init` and `apply` of `testdata/<configuration>/main.tf` (with the shared
    /// `testdata/aws/moto.tf`), with `apply_flags` added; `None` when a tool is missing (the
    /// oracle's finders say so, and fail under CI).
    pub(crate) fn apply(configuration: &str, apply_flags: &[&str]) -> Option<AwsStack> {
        let terraform = terraform()?;
        let mirror = aws_provider_mirror()?;
        let server = moto_server()?;
        let folder = tempfile::tempdir().unwrap();
        crate::files::copy_aws_stack(configuration, folder.path());
        crate::files::write_mirror_config(
            &folder.path().join("cli.tfrc"),
            &mirror,
            "registry.terraform.io/hashicorp/aws",
        );
        let moto = Moto::start(&server, folder.path());
        let stack = AwsStack {
            folder,
            terraform,
            moto,
        };
        run(&mut stack.terraform(&["init", "-input=false", "-no-color"]));
        let apply = [
            &["apply", "-auto-approve", "-input=false", "-no-color"],
            apply_flags,
        ]
        .concat();
        run(&mut stack.terraform(&apply));
        Some(stack)
    }

    pub(crate) fn path(&self) -> &Path {
        self.folder.path()
    }

    /// Terraform in the folder, with its CLI configuration; `apply` and `plan` get moto's endpoint.
    pub(crate) fn terraform(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.terraform);
        command.args(args);
        if matches!(args.first(), Some(&("apply" | "plan"))) {
            command.arg(format!("-var=endpoint={}", self.moto.url()));
        }
        command
            .current_dir(self.path())
            .env("TF_CLI_CONFIG_FILE", self.path().join("cli.tfrc"));
        command
    }
}
