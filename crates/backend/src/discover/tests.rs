//! Discovery against backend caches Terraform 1.15.5 wrote (`crates/backend/testdata/*-cache.json`,
//! from `terraform init` with an `http` and a `local` backend block).

use super::*;
use crate::discover::checks::{listed, listing, refusal, state_at, state_with};

const HTTP_CACHE: &str = include_str!("../../testdata/http-cache.json");
const LOCAL_CACHE: &str = include_str!("../../testdata/local-cache.json");

/// A working directory with `.terraform/terraform.tfstate` holding `cache` and, when given, the
/// selected workspace in `.terraform/environment`.
fn initialised(cache: &str, environment: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".terraform")).unwrap();
    std::fs::write(dir.path().join(".terraform/terraform.tfstate"), cache).unwrap();
    if let Some(name) = environment {
        std::fs::write(dir.path().join(".terraform/environment"), name).unwrap();
    }
    dir
}

fn with(workspace: Option<&str>, items: &[&str]) -> Overrides {
    Overrides {
        workspace: workspace.map(ToOwned::to_owned),
        backend_config: items.iter().map(|item| (*item).to_owned()).collect(),
    }
}

#[test]
fn the_recorded_backend_and_the_selected_workspace_are_found() {
    let dir = initialised(HTTP_CACHE, Some("default\n"));
    let Found::Remote(config) = in_directory(dir.path(), &Overrides::default()).unwrap() else {
        panic!("an http backend is remote")
    };
    assert_eq!(config.kind, "http");
    assert_eq!(
        config.string("address").as_deref(),
        Some("http://127.0.0.1:9/state")
    );
    assert_eq!(config.string("lock_address"), None);
    assert_eq!(config.workspace, "default");
    assert_eq!(config.origin, ".terraform/terraform.tfstate");
}

#[test]
fn backend_config_items_apply_over_the_cache_in_order() {
    let dir = initialised(HTTP_CACHE, None);
    let file = dir.path().join("creds.hcl");
    std::fs::write(&file, "username = \"ci\"\nretry_max = 5\n").unwrap();
    let overrides = with(
        None,
        &[
            "username=first",
            file.to_str().unwrap(),
            "lock_address=http://127.0.0.1:9/lock",
        ],
    );
    let Found::Remote(config) = in_directory(dir.path(), &overrides).unwrap() else {
        panic!("remote")
    };
    assert_eq!(config.string("username").as_deref(), Some("ci"));
    assert_eq!(config.integer("retry_max").unwrap(), Some(5));
    assert_eq!(
        config.string("lock_address").as_deref(),
        Some("http://127.0.0.1:9/lock")
    );
}

#[test]
fn a_backend_config_key_the_backend_does_not_take_is_refused() {
    let dir = initialised(HTTP_CACHE, None);
    let error = in_directory(dir.path(), &with(None, &["bucket=x"])).unwrap_err();
    assert_eq!(
        error.message,
        "--backend-config bucket=x: `bucket` is not an argument of backend \"http\""
    );
}

#[test]
fn an_object_value_is_read_as_an_hcl_expression() {
    let overrides = with(None, &["endpoints={ s3 = \"http://127.0.0.1:5000\" }"]);
    let config = from_url("s3://bucket/a/terraform.tfstate", &overrides)
        .unwrap()
        .unwrap();
    let endpoints = config.object("endpoints").unwrap().unwrap();
    assert_eq!(endpoints["s3"], "http://127.0.0.1:5000");
    let error = from_url("s3://b/k", &with(None, &["endpoints={ s3 = }"])).unwrap_err();
    assert!(
        error
            .message
            .starts_with("--backend-config endpoints=...: the value is not a valid expression"),
        "{}",
        error.message
    );
}

#[test]
fn the_local_backend_gives_its_path_and_its_workspace_folder() {
    for (environment, path, how) in [
        (
            None,
            "states/prod.tfstate",
            "backend \"local\" in .terraform/terraform.tfstate",
        ),
        (
            Some("blue"),
            "ws/blue/terraform.tfstate",
            "workspace \"blue\"",
        ),
    ] {
        let dir = initialised(LOCAL_CACHE, environment);
        let found = in_directory(dir.path(), &Overrides::default()).unwrap();
        assert_eq!(
            found,
            Found::Local {
                path: dir.path().join(path),
                how: Some(how.to_owned()),
            },
            "workspace {environment:?}"
        );
    }
}

#[test]
fn an_uninitialised_directory_keeps_terraform_tfstate_and_its_workspaces() {
    let dir = tempfile::tempdir().unwrap();
    let found = in_directory(dir.path(), &Overrides::default()).unwrap();
    assert_eq!(
        found,
        Found::Local {
            path: dir.path().join("terraform.tfstate"),
            how: None,
        }
    );
    let found = in_directory(dir.path(), &with(Some("green"), &[])).unwrap();
    assert_eq!(
        found,
        Found::Local {
            path: dir
                .path()
                .join("terraform.tfstate.d/green/terraform.tfstate"),
            how: Some("workspace \"green\"".to_owned()),
        }
    );
    let error = in_directory(dir.path(), &with(None, &["bucket=x"])).unwrap_err();
    assert!(
        error
            .message
            .starts_with("`--backend-config` needs a backend")
    );
}

#[test]
fn workspace_names_terraform_refuses_are_refused() {
    let dir = initialised(HTTP_CACHE, Some("../etc"));
    let error = in_directory(dir.path(), &Overrides::default()).unwrap_err();
    assert!(
        error
            .message
            .ends_with("environment: `../etc` is not a valid workspace name"),
        "{}",
        error.message
    );
    let error = in_directory(dir.path(), &with(Some("a b"), &[])).unwrap_err();
    assert_eq!(
        error.message,
        "--workspace: `a b` is not a valid workspace name"
    );
    assert!(valid_workspace("dev-1_a.b~c@d", "x").is_ok());
}

#[test]
fn a_damaged_cache_is_one_line_with_its_position() {
    let dir = initialised("{\"version\": 3,\n \"backend\": {", None);
    let error = in_directory(dir.path(), &Overrides::default()).unwrap_err();
    assert!(
        error.message.starts_with(".terraform/terraform.tfstate:2:"),
        "{}",
        error.message
    );
    assert_eq!(
        error.hint.as_deref(),
        Some("run `terraform init` again to rewrite it")
    );
}

#[test]
fn urls_name_their_backend_and_anything_else_is_a_path() {
    state_with(
        "s3://my-bucket/env/prod.tfstate",
        "s3",
        &[("bucket", "my-bucket"), ("key", "env/prod.tfstate")],
    );
    let config = state_at("https://u:secret@gitlab.example/api/state?token=t");
    assert_eq!(config.kind, "http");
    assert_eq!(config.origin, "https://***@gitlab.example/api/state?***");
    assert_eq!(
        from_url("states/prod.tfstate", &Overrides::default()).unwrap(),
        None
    );
    assert_eq!(
        refusal("s3://bucket-only"),
        "s3://bucket-only: an S3 state URL names a bucket and an object key"
    );
}

#[test]
fn a_prefix_url_names_a_listing_and_a_key_url_does_not() {
    let config = listed("s3://bucket/org/", "s3", "org/");
    assert_eq!(config.string("bucket").as_deref(), Some("bucket"));
    listed("s3://bucket", "s3", "");
    assert_eq!(listing("s3://bucket/org/prod.tfstate"), None);
    assert_eq!(listing("https://host/state/"), None);
}

#[test]
fn a_gs_url_names_the_gcs_workspace_object_and_a_prefix_url_a_listing() {
    let overrides = with(
        None,
        &["storage_custom_endpoint=http://127.0.0.1:4443/storage/v1/"],
    );
    let config = from_url("gs://acme/team/app/prod.tfstate", &overrides)
        .unwrap()
        .unwrap();
    assert_eq!(config.kind, "gcs");
    assert_eq!(config.string("bucket").as_deref(), Some("acme"));
    assert_eq!(config.string("prefix").as_deref(), Some("team/app"));
    assert_eq!(config.workspace, "prod");
    assert_eq!(
        config.string("storage_custom_endpoint").as_deref(),
        Some("http://127.0.0.1:4443/storage/v1/")
    );
    let error = from_url("gs://acme/app/prod.tfstate", &with(Some("dev"), &[])).unwrap_err();
    assert_eq!(
        error.message,
        "gs://acme/app/prod.tfstate: the URL names workspace `prod`'s state, not `dev`'s"
    );
    listed("gs://acme/org/", "gcs", "org/");
    assert_eq!(listing("gs://acme/org/prod.tfstate"), None);
}

#[test]
fn azurerm_urls_name_the_account_the_container_and_the_blob_or_a_prefix() {
    let config = from_url(
        "azurerm://acct/tfstate/teams/prod.tfstateenv:dev",
        &with(Some("default"), &["access_key=a2V5"]),
    )
    .unwrap()
    .unwrap();
    assert_eq!(config.kind, "azurerm");
    assert_eq!(
        config.string("storage_account_name").as_deref(),
        Some("acct")
    );
    assert_eq!(config.string("container_name").as_deref(), Some("tfstate"));
    assert_eq!(
        config.string("key").as_deref(),
        Some("teams/prod.tfstateenv:dev")
    );
    assert_eq!(config.string("access_key").as_deref(), Some("a2V5"));
    for bad in [
        "azurerm://acct",
        "azurerm://acct/tfstate",
        "azurerm://acct/tfstate/dir/",
    ] {
        assert_eq!(
            refusal(bad),
            format!("{bad}: an azurerm state URL names a storage account, a container and a blob")
        );
    }
    let config = listed("azurerm://acct/tfstate/teams/", "azurerm", "teams/");
    assert_eq!(config.string("container_name").as_deref(), Some("tfstate"));
    listed("azurerm://acct/tfstate/", "azurerm", "");
    assert_eq!(listing("azurerm://acct/tfstate/prod.tfstate"), None);
}
