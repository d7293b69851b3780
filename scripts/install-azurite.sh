#!/usr/bin/env bash
# Owns target/azurite/: Azurite, Microsoft's Azure Storage emulator (from the npm registry), as the
# Blob service the azurerm backend's tests talk to on loopback, and Microsoft's Blob SDK for
# JavaScript beside it, the other client those tests arrange things with. Idempotent.
# stdout, last line: the azurite-blob command.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
PREFIX="$(pwd)/target/azurite"
VERSION="3.37.0"
SDK_VERSION="12.34.0"
BIN="$PREFIX/node_modules/.bin/azurite-blob"

installed() {
    node -p "require('$PREFIX/node_modules/$1/package.json').version" 2>/dev/null
}

if [ "$(installed azurite)" != "$VERSION" ] || [ "$(installed @azure/storage-blob)" != "$SDK_VERSION" ]; then
    echo "installing azurite@$VERSION and @azure/storage-blob@$SDK_VERSION into $PREFIX" >&2
    mkdir -p "$PREFIX"
    npm install --prefix "$PREFIX" --no-save --no-audit --no-fund --loglevel=error \
        "azurite@$VERSION" "@azure/storage-blob@$SDK_VERSION" >&2
fi

echo "$BIN"
