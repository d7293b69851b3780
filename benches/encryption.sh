#!/usr/bin/env bash
# Owns the encryption benchmark: OpenTofu's default key derivation (600,000 rounds of SHA-512)
# and the decrypt + encrypt of the 20k-instance (~50 MB) state, through the encryption crate's
# `bench` example in release mode. Prints a Markdown table.
#   benches/encryption.sh [RUNS]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${1:-5}"
# STATECTL_BENCH_STATE names another state (the main checkout's, rather than generating one).
STATE="${STATECTL_BENCH_STATE:-$ROOT/target/bench/state-20k.tfstate}"
if [[ ! -s "$STATE" ]]; then
  echo "bench: generating $STATE" >&2
  mkdir -p "$ROOT/target/bench"
  python3 "$ROOT/benches/gen_state.py" --instances 20000 --out "$STATE"
fi
cargo build --quiet --release -p statectl-encryption --example bench --manifest-path "$ROOT/Cargo.toml"
"$ROOT/target/release/examples/bench" "$STATE" "$RUNS"
