#!/usr/bin/env bash
# Owns target/tf-provider/: a Python with the `tf` package (PyPI), an independent implementation of
# the provider side of Terraform's plugin protocol 6 (go-plugin handshake, TLS, tfplugin6). The
# plugin reader's protocol-6 tests run the test provider in testdata/plugin-tf/ with it. Idempotent.
# stdout, last line: the python to export as STATECTL_TF_PYTHON.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/venv.sh
source scripts/venv.sh
python_tool tf-provider tf "1.2.0"
