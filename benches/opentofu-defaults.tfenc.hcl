key_provider "pbkdf2" "main" {
  passphrase = "correct-horse-battery-staple"
}
method "aes_gcm" "main" {
  keys = key_provider.pbkdf2.main
}
method "unencrypted" "old" {}
state {
  method = method.aes_gcm.main
  fallback {
    method = method.unencrypted.old
  }
}
