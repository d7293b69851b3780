#!/usr/bin/env bash
# Owns target/moto/: moto's server, an AWS API emulator on loopback, as the AWS the plugin reader's
# end-to-end tests and bench talk to through the real AWS provider. Idempotent.
# stdout, last line: the moto_server command.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="$(pwd)/target/moto/venv"
VERSION="5.2.1"

if ! "$VENV/bin/python" -c 'import sys, importlib.metadata as m; sys.exit(m.version("moto") != sys.argv[1])' \
        "$VERSION" 2>/dev/null; then
    echo "installing moto[server]==$VERSION into $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$VERSION" >&2
fi

echo "$VENV/bin/moto_server"
