#!/usr/bin/env bash
# Owns target/tf-provider/: a Python with the `tf` package (PyPI), an independent implementation of
# the provider side of Terraform's plugin protocol 6 (go-plugin handshake, TLS, tfplugin6). The
# plugin reader's protocol-6 tests run the test provider in testdata/plugin-tf/ with it. Idempotent.
# stdout, last line: the python to export as STATECTL_TF_PYTHON.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="$(pwd)/target/tf-provider/venv"
VERSION="1.2.0"

if ! "$VENV/bin/python" -c 'import sys, importlib.metadata as m; sys.exit(m.version("tf") != sys.argv[1])' \
        "$VERSION" 2>/dev/null; then
    echo "installing tf==$VERSION into $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "tf==$VERSION" >&2
fi

echo "$VENV/bin/python"
