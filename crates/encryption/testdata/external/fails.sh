#!/usr/bin/env bash
# A key provider that fails, saying something secret on stderr on its way out.
echo '{"magic":"OpenTofu-External-Key-Provider","version":1}'
echo "vault said no; token=s.SECRET-TOKEN-VALUE" >&2
exit 3
