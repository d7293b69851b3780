//! The requests the gcs backend sends, seen by a loopback fake: the customer-supplied key's headers
//! on every read and write of the state (never on the lock), the KMS key on writes, the lock created
//! with `ifGenerationMatch=0` and deleted with its generation, the listing followed across pages.

use base64::Engine as _;
use rsa::sha2::{Digest as _, Sha256};
use serde_json::json;

use statectl_state::state::store::lock_info::LockInfo;
use statectl_state::state::store::{LockRefused, RemoteState};

use super::*;
use crate::gcs::fake::fake;

fn open(url: &str, extra: &serde_json::Value) -> GcsState {
    let mut values = json!({
        "bucket": "tf",
        "prefix": "team/app",
        "storage_custom_endpoint": format!("{url}/storage/v1/"),
        "access_token": "ya29.test",
    });
    for (key, value) in extra.as_object().unwrap() {
        values[key] = value.clone();
    }
    GcsState::open(&BackendConfig::for_tests("gcs", values)).unwrap()
}

#[test]
fn object_names_are_escaped_whole_in_paths() {
    assert_eq!(
        escape::unreserved("team/app/default.tfstate"),
        "team%2Fapp%2Fdefault.tfstate"
    );
    assert_eq!(escape::unreserved("a b+c~"), "a%20b%2Bc~");
    assert_eq!(escape::unreserved("env:dev é"), "env%3Adev%20%C3%A9");
}

#[test]
fn the_state_carries_the_customer_key_and_the_lock_is_created_and_deleted_by_generation() {
    let key = [9u8; 32];
    let encoded = base64::engine::general_purpose::STANDARD.encode(key);
    let info = LockInfo::new(
        "statectl taint",
        std::path::Path::new("gs://tf/team/app/default.tflock"),
    );
    let lock_object = r#"{"name": "team/app/default.tflock", "generation": "1700"}"#;
    let (url, seen) = fake(vec![
        (200, "{\"version\": 4}".to_owned()),
        (200, lock_object.to_owned()),
        (
            200,
            r#"{"name": "team/app/default.tfstate", "generation": "5"}"#.to_owned(),
        ),
        (200, lock_object.to_owned()),
        (200, info.to_json()),
        (204, String::new()),
    ]);
    let backend = open(&url, &json!({"encryption_key": encoded}));
    assert_eq!(backend.lock_path(), "gs://tf/team/app/default.tflock");
    assert_eq!(
        backend.get().unwrap().as_deref(),
        Some(&b"{\"version\": 4}"[..])
    );
    backend.lock(&info).unwrap();
    // What `terraform force-unlock` would take, should the release fail.
    assert_eq!(backend.force_unlock_id(&info), "1700");
    backend
        .put(b"{\"version\": 4, \"serial\": 2}", &info)
        .unwrap();
    backend.unlock(&info).unwrap();

    let seen = seen.lock().unwrap().clone();
    let lines: Vec<&str> = seen.iter().map(|request| request.line.as_str()).collect();
    assert_eq!(
        lines,
        [
            "GET /storage/v1/b/tf/o/team%2Fapp%2Fdefault.tfstate?alt=media HTTP/1.1",
            "POST /upload/storage/v1/b/tf/o?uploadType=multipart&name=team%2Fapp%2Fdefault.tflock&ifGenerationMatch=0 HTTP/1.1",
            "POST /upload/storage/v1/b/tf/o?uploadType=multipart&name=team%2Fapp%2Fdefault.tfstate HTTP/1.1",
            "GET /storage/v1/b/tf/o/team%2Fapp%2Fdefault.tflock HTTP/1.1",
            "GET /storage/v1/b/tf/o/team%2Fapp%2Fdefault.tflock?alt=media&generation=1700 HTTP/1.1",
            "DELETE /storage/v1/b/tf/o/team%2Fapp%2Fdefault.tflock?ifGenerationMatch=1700 HTTP/1.1",
        ]
    );
    let digest = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(key));
    for state in [&seen[0], &seen[2]] {
        assert_eq!(state.header("authorization"), Some("Bearer ya29.test"));
        assert_eq!(state.header("x-goog-encryption-algorithm"), Some("AES256"));
        assert_eq!(
            state.header("x-goog-encryption-key"),
            Some(encoded.as_str())
        );
        assert_eq!(
            state.header("x-goog-encryption-key-sha256"),
            Some(digest.as_str())
        );
    }
    // The lock object is written without the state's key, as Terraform writes it.
    let lock = &seen[1];
    assert_eq!(lock.header("x-goog-encryption-key"), None);
    assert!(lock.body.contains(&info.to_json()), "{}", lock.body);
    let write = &seen[2];
    assert!(
        write
            .header("content-type")
            .unwrap()
            .starts_with("multipart/related; boundary=")
    );
    assert!(
        write
            .body
            .contains("\r\n\r\n{\"version\": 4, \"serial\": 2}\r\n--")
    );
}

#[test]
fn a_write_names_the_kms_key_and_a_held_lock_names_its_holder_by_generation() {
    let mut theirs = LockInfo::new("OperationTypeApply", std::path::Path::new("gs://tf/x"));
    "bo@laptop".clone_into(&mut theirs.who);
    let (url, seen) = fake(vec![
        (200, r#"{"generation": "5"}"#.to_owned()),
        (
            412,
            r#"{"error": {"code": 412, "message": "Precondition Failed"}}"#.to_owned(),
        ),
        (200, r#"{"generation": "77"}"#.to_owned()),
        (200, theirs.to_json()),
    ]);
    let backend = open(
        &url,
        &json!({"kms_encryption_key": "projects/p/locations/eu/keyRings/r/cryptoKeys/k"}),
    );
    let ours = LockInfo::new("statectl taint", std::path::Path::new("gs://tf/x"));
    backend.put(b"{}", &ours).unwrap();
    let holder = match backend.lock(&ours) {
        Err(LockRefused::Held(Some(holder))) => *holder,
        other => panic!("not held: {other:?}"),
    };
    assert_eq!(holder.who, "bo@laptop");
    assert_eq!(holder.id, "77", "Terraform's lock ID is the generation");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen[0].line,
        "POST /upload/storage/v1/b/tf/o?uploadType=multipart&name=team%2Fapp%2Fdefault.tfstate&kmsKeyName=projects%2Fp%2Flocations%2Feu%2FkeyRings%2Fr%2FcryptoKeys%2Fk HTTP/1.1"
    );
    assert_eq!(seen[0].header("x-goog-encryption-key"), None);
}

#[test]
fn a_listing_follows_every_page_and_leaves_the_locks_out() {
    let (url, seen) = fake(vec![
        (
            200,
            r#"{"items": [{"name": "org/b/default.tfstate"}, {"name": "org/b/default.tflock"}], "nextPageToken": "p 2"}"#
                .to_owned(),
        ),
        (200, r#"{"items": [{"name": "org/a/dev.tfstate"}]}"#.to_owned()),
    ]);
    let keep = |_: &str| true;
    let base = open(&url, &json!({}));
    let listed = base
        .keys_under(
            "org/",
            crate::ListOptions {
                keep: &keep,
                max_pages: 10,
            },
        )
        .unwrap();
    assert_eq!(listed.keys, ["org/a/dev.tfstate", "org/b/default.tfstate"]);
    assert!(listed.warnings.is_empty());
    let state = base.at_object(listed.keys[0].clone());
    assert_eq!(state.location(), "gs://tf/org/a/dev.tfstate");
    assert_eq!(state.lock_path(), "gs://tf/org/a/dev.tflock");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen[0].line,
        "GET /storage/v1/b/tf/o?prefix=org%2F HTTP/1.1"
    );
    assert_eq!(
        seen[1].line,
        "GET /storage/v1/b/tf/o?prefix=org%2F&pageToken=p+2 HTTP/1.1"
    );
}
