#!/usr/bin/env bash
# Owns the end-to-end benchmark of a write to an OpenTofu-encrypted state: `statectl untaint ADDR`
# on the 50 MB generated state (benches/gen_state.py), plaintext against pbkdf2 + aes_gcm envelopes,
# each run on a fresh copy (the copy untimed). A write derives two keys (the stored salt's, to read;
# a fresh salt's, to write), so the cost beyond key derivation is found from two iteration counts in
# the same run: T(n) = T(plain) + overhead + 2·k·n, with k the cost of one round.
#   benches/encrypted_taint.sh [RUNS]
# Environment: STATECTL (default: cargo build --release, target/release/statectl).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${1:-7}"
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "encrypted taint bench: RUNS must be a positive integer" >&2; exit 2; }
log() { printf '%s\n' "$*" >&2; }
if [[ -z "${STATECTL:-}" ]]; then
  log "encrypted taint bench: cargo build --release"
  (cd "$ROOT" && cargo build --release >&2)
  STATECTL="$ROOT/target/release/statectl"
fi
STATE="$ROOT/target/bench/state-20k.tfstate"
if [[ ! -s "$STATE" ]]; then
  mkdir -p "$ROOT/target/bench"
  python3 "$ROOT/benches/gen_state.py" --instances 20000 --out "$STATE"
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/encrypted-taint.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
ADDRESS="$("$STATECTL" list "$STATE" | sed -n '1000p')"

config() { # config ITERATIONS [FALLBACK]: the encryption block's body
  printf 'key_provider "pbkdf2" "main" {\n  passphrase = "correct-horse-battery-staple"\n  iterations = %s\n}\n' "$1"
  printf 'method "aes_gcm" "main" {\n  keys = key_provider.pbkdf2.main\n}\n'
  if [[ -n "${2:-}" ]]; then
    printf 'method "unencrypted" "old" {}\nstate {\n  method = method.aes_gcm.main\n  fallback {\n    method = method.unencrypted.old\n  }\n}\n'
  else
    printf 'state {\n  method = method.aes_gcm.main\n}\n'
  fi
}

# The pristine files: ADDRESS tainted, in plaintext and in each envelope.
cp "$STATE" "$WORK/plain.tfstate"
"$STATECTL" taint "$ADDRESS" "$WORK/plain.tfstate" --backup - >/dev/null 2>&1
for n in 600000 200000; do
  cp "$STATE" "$WORK/enc-$n.tfstate"
  TF_ENCRYPTION="$(config "$n" fallback)" "$STATECTL" taint "$ADDRESS" "$WORK/enc-$n.tfstate" --backup - >/dev/null 2>&1
  head -c 20 "$WORK/enc-$n.tfstate" | grep -q '^{"serial":' || { log "encrypted taint bench: enc-$n is not an envelope"; exit 1; }
done

median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR % 2) printf "%.4f", v[(NR + 1) / 2]; else printf "%.4f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
declare -A MEDIAN
# bench NAME FILE [ITERATIONS]: one warm-up, then RUNS untaints of a fresh copy of FILE.
bench() {
  local name="$1" file="$2" n="${3:-}" walls=() i t0 t1
  for ((i = 0; i <= RUNS; i++)); do
    cp "$WORK/$file" "$WORK/run.tfstate"
    t0="${EPOCHREALTIME/,/.}"
    if [[ -n "$n" ]]; then
      TF_ENCRYPTION="$(config "$n")" "$STATECTL" untaint "$ADDRESS" "$WORK/run.tfstate" --backup - >/dev/null 2>"$WORK/stderr"
    else
      "$STATECTL" untaint "$ADDRESS" "$WORK/run.tfstate" --backup - >/dev/null 2>"$WORK/stderr"
    fi
    t1="${EPOCHREALTIME/,/.}"
    ((i == 0)) || walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')")
  done
  MEDIAN[$name]="$(median "${walls[@]}")"
  log "encrypted taint bench: $name: ${MEDIAN[$name]}s"
}
bench plain plain.tfstate
bench enc600 enc-600000.tfstate 600000
bench enc200 enc-200000.tfstate 200000

awk -v p="${MEDIAN[plain]}" -v a="${MEDIAN[enc600]}" -v b="${MEDIAN[enc200]}" -v runs="$RUNS" 'BEGIN {
  k = (a - b) / (2 * 400000)            # one PBKDF2 round, from the two iteration counts
  kdf = k * 600000                      # one derivation at the default count
  over = a - p - 2 * kdf
  printf "| `statectl untaint` on the 50 MB state (median of %d) | seconds |\n|---|---:|\n", runs
  printf "| plaintext | %.3f |\n", p
  printf "| encrypted, pbkdf2 600,000 rounds of SHA-512 (OpenTofu\047s default) | %.3f |\n", a
  printf "| encrypted, pbkdf2 200,000 rounds (the minimum) | %.3f |\n", b
  printf "| one key derivation at 600,000 rounds (from the two) | %.3f |\n", kdf
  printf "| cost beyond the two key derivations, above plaintext | %.3f |\n", over
}'
