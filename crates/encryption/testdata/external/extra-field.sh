#!/usr/bin/env bash
# An answer with a field the protocol does not have (OpenTofu's decoder refuses unknown fields).
echo '{"magic":"OpenTofu-External-Key-Provider","version":1}'
echo '{"keys":{"encryption_key":"a2tra2tra2tra2tra2tra2tra2tra2tra2tra2tra2s=","passphrase":"leak-me-not"},"meta":{}}'
