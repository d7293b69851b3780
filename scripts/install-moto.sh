#!/usr/bin/env bash
# Owns target/moto/: moto's server, an AWS API emulator on loopback, as the AWS the plugin reader's
# end-to-end tests and bench talk to through the real AWS provider. Idempotent.
# stdout, last line: the moto_server command.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/venv.sh
source scripts/venv.sh
VENV="$(pwd)/target/moto/venv"
VERSION="5.2.1"

venv_with "$VENV" moto "$VERSION" "moto[server]"

echo "$VENV/bin/moto_server"
