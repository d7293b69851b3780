//! The process-wide registry through the public API (each test registers markers of its own).

use super::*;

#[test]
fn a_registered_token_is_masked_in_data_and_messages() {
    register("  api-token-for-the-mod-test\n");
    assert_eq!(mask("status: api-token-for-the-mod-test"), "status: ***");
    assert_eq!(
        mask_message("Invalid: api-token-for-the-mod-test"),
        "Invalid: ***"
    );
    assert!(holds_secret(r#"{"name":"api-token-for-the-mod-test"}"#));
}

#[test]
fn messages_get_the_pattern_masks_and_data_does_not() {
    let text = "postgres://app:pw@db/x";
    assert_eq!(mask(text), text);
    assert_eq!(mask_message(text), "postgres://***@db/x");
}

#[test]
fn a_urls_password_is_registered_alone_and_with_its_user() {
    register_url("http://admin:url-password-marker@127.0.0.1:9/");
    assert_eq!(mask("echo url-password-marker"), "echo ***");
    assert_eq!(mask("admin:url-password-marker"), "***");
}

#[test]
fn binary_keys_are_masked_in_their_base64_and_hex_spellings() {
    let key = [7u8; 32];
    register_bytes(&key);
    assert_eq!(
        mask("key=BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="),
        "key=***"
    );
    assert_eq!(mask(&"07".repeat(32)), "***");
}

#[test]
fn an_ephemeral_signature_is_masked() {
    register_ephemeral("one-request-signature-marker");
    assert_eq!(mask("sig one-request-signature-marker"), "sig ***");
}
