//! The commands a finding's hint names, with the finding's own address in them, quoted so that a
//! person can paste them into a POSIX shell: statectl's own commands where statectl can do the job
//! (`refresh` for a type a built-in refresh profile covers, `untaint`, `taint`, `forget`), Terraform's
//! where it cannot (`apply -refresh-only` for other types, `apply` to replace or destroy, `import`).
//! Which types `statectl refresh` covers is the catalog's `refreshed_by_statectl`, which the CLI
//! fills from the profiles: the analyses do not depend on `statectl-reconcile`.

use crate::scan::catalog::Catalog;

/// `address` as one shell word: as is when every character is plain, else in single quotes (a `[`
/// is a glob to the shell and `"` a quote; a `'` inside becomes `'\''`).
pub fn shell_word(address: &str) -> String {
    let plain = !address.is_empty()
        && address
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || "_.-/:=@%+,".contains(character));
    if plain {
        address.to_owned()
    } else {
        format!("'{}'", address.replace('\'', r"'\''"))
    }
}

/// The command that refreshes one instance: `statectl refresh --target ADDR --write` when the
/// catalog says a built-in profile covers its type, else `terraform apply -refresh-only -target=ADDR`.
pub fn refresh_command(catalog: &Catalog, address: &str, type_name: &str) -> String {
    if catalog.refreshed_by_statectl.contains(type_name) {
        format!("statectl refresh --target {} --write", shell_word(address))
    } else {
        terraform_refresh_command(address)
    }
}

/// `terraform apply -refresh-only -target=ADDR`: Terraform's refresh of one instance, for what no
/// refresh profile covers.
pub fn terraform_refresh_command(address: &str) -> String {
    format!(
        "terraform apply -refresh-only -target={}",
        shell_word(address)
    )
}

/// `statectl untaint ADDR`.
pub fn untaint_command(address: &str) -> String {
    format!("statectl untaint {}", shell_word(address))
}

/// `statectl taint ADDR`.
pub fn taint_command(address: &str) -> String {
    format!("statectl taint {}", shell_word(address))
}

/// `statectl forget ADDR`, or with `--deposed KEY` for one deposed object.
pub fn forget_command(address: &str, deposed: Option<&str>) -> String {
    match deposed {
        Some(key) => format!(
            "statectl forget {} --deposed {}",
            shell_word(address),
            shell_word(key)
        ),
        None => format!("statectl forget {}", shell_word(address)),
    }
}

/// `terraform import ADDR ID`.
pub fn import_command(address: &str) -> String {
    format!("terraform import {} ID", shell_word(address))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_with_brackets_or_quotes_are_single_quoted() {
        assert_eq!(shell_word("aws_instance.web"), "aws_instance.web");
        assert_eq!(
            shell_word("module.app.aws_instance.web"),
            "module.app.aws_instance.web"
        );
        assert_eq!(shell_word("aws_instance.web[0]"), "'aws_instance.web[0]'");
        assert_eq!(
            shell_word(r#"aws_instance.web["eu west"]"#),
            r#"'aws_instance.web["eu west"]'"#
        );
        assert_eq!(
            shell_word(r#"aws_instance.web["it's"]"#),
            r#"'aws_instance.web["it'\''s"]'"#
        );
    }

    /// What a shell makes of the quoted word is the address again (checked with the real `sh`).
    #[test]
    fn the_shell_reads_back_the_address() {
        for address in [
            "aws_instance.web[0]",
            r#"module.app["a b"].aws_instance.web["it's $HOME *"]"#,
            "hcloud_server.workers[1]",
        ] {
            let output = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", shell_word(address)))
                .output()
                .expect("sh runs");
            assert_eq!(String::from_utf8(output.stdout).unwrap(), address);
        }
    }

    #[test]
    fn refresh_names_statectl_only_for_types_the_catalog_says_it_covers() {
        let mut catalog = Catalog::builtin();
        assert_eq!(
            refresh_command(&catalog, "oci_core_instance.app", "oci_core_instance"),
            "terraform apply -refresh-only -target=oci_core_instance.app",
            "no covered types given: Terraform's command"
        );
        catalog.refreshed_by_statectl = ["oci_core_instance", "cloudfoundry_service_instance"]
            .map(String::from)
            .into();
        assert_eq!(
            refresh_command(&catalog, "oci_core_instance.app", "oci_core_instance"),
            "statectl refresh --target oci_core_instance.app --write"
        );
        assert_eq!(
            refresh_command(&catalog, "helm_release.argocd", "helm_release"),
            "terraform apply -refresh-only -target=helm_release.argocd"
        );
        assert_eq!(
            refresh_command(
                &catalog,
                r#"cloudfoundry_service_instance.db["eu"]"#,
                "cloudfoundry_service_instance"
            ),
            r#"statectl refresh --target 'cloudfoundry_service_instance.db["eu"]' --write"#
        );
        assert_eq!(
            forget_command("aws_instance.web", Some("1a2b3c4d")),
            "statectl forget aws_instance.web --deposed 1a2b3c4d"
        );
    }
}
