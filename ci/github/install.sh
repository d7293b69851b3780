#!/usr/bin/env bash
# The action's first step: installs statectl with cargo, from crates.io when STATECTL_VERSION names a
# version, else from the action's own checkout (GITHUB_ACTION_PATH), and puts cargo's bin folder on
# the job's PATH (GITHUB_PATH). Tested outside GitHub by tests/integration/ci_github.rs.
set -euo pipefail

version="${STATECTL_VERSION:-}"
if [[ -n "$version" ]]; then
  if [[ ! "$version" =~ ^[0-9A-Za-z.+-]+$ ]]; then
    echo "::error title=statectl::version must be a version number (like 0.1.0), not \`${version//%/%25}\`"
    exit 2
  fi
  cargo install --locked statectl --version "$version"
else
  cargo install --locked --path "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is the checkout of the action}"
fi

bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if [[ -n "${GITHUB_PATH:-}" ]]; then
  echo "$bin" >>"$GITHUB_PATH"
fi
"$bin/statectl" --version
