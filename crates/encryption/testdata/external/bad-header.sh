#!/usr/bin/env bash
# Not OpenTofu's protocol: the wrong magic.
echo '{"magic":"Something-Else","version":1}'
echo '{"keys":{"encryption_key":"AAAA"},"meta":{}}'
