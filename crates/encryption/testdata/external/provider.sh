#!/usr/bin/env bash
# A key provider speaking OpenTofu's external protocol: a fixed 32-byte key, and metadata naming
# it. A write gets `null` on stdin and returns the encryption key; a read gets the stored
# metadata and also returns the decryption key. EXTERNAL_INPUT_LOG, when set, records stdin.
set -euo pipefail
echo '{"magic":"OpenTofu-External-Key-Provider","version":1}'
INPUT=$(cat)
if [ -n "${EXTERNAL_INPUT_LOG:-}" ]; then printf '%s\n' "$INPUT" >> "$EXTERNAL_INPUT_LOG"; fi
KEY=$(printf 'k%.0s' {1..32} | base64)
if [ "$INPUT" = "null" ]; then
  printf '{"keys":{"encryption_key":"%s"},"meta":{"external_data":{"key_id":"k1","rounds":1}}}' "$KEY"
else
  printf '{"keys":{"encryption_key":"%s","decryption_key":"%s"},"meta":{"external_data":{"key_id":"k1","rounds":1}}}' "$KEY" "$KEY"
fi
