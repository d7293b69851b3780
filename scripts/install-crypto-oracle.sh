#!/usr/bin/env bash
# Owns target/crypto-oracle/: a Python with the `cryptography` package, the independent
# implementation the encryption crate's tests check OpenTofu's envelope against
# (crates/encryption/testdata/oracle.py). Idempotent.
# stdout, last line: the python to export as STATECTL_CRYPTO_PYTHON.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="$(pwd)/target/crypto-oracle/venv"
VERSION="48.0.0"

if ! "$VENV/bin/python" -c 'import sys, importlib.metadata as m; sys.exit(m.version("cryptography") != sys.argv[1])' \
        "$VERSION" 2>/dev/null; then
    echo "installing cryptography==$VERSION into $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "cryptography==$VERSION" >&2
fi

echo "$VENV/bin/python"
