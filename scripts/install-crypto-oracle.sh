#!/usr/bin/env bash
# Owns target/crypto-oracle/: a Python with the `cryptography` package, the independent
# implementation the encryption crate's tests check OpenTofu's envelope against
# (crates/encryption/testdata/oracle.py). Idempotent.
# stdout, last line: the python to export as STATECTL_CRYPTO_PYTHON.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/venv.sh
source scripts/venv.sh
python_tool crypto-oracle cryptography "48.0.0"
