#!/usr/bin/env bash
# Owns the end-to-end benchmark of a write to an OpenTofu-encrypted state: `statectl untaint ADDR`
# on the 50 MB generated state (benches/gen_state.py), plaintext against a pbkdf2 + aes_gcm envelope
# at OpenTofu's defaults (600,000 rounds of SHA-512), each run on a fresh copy (the copy untimed).
#
# A write derives two keys (the stored salt's, to read; a fresh salt's, to write, made on a thread
# of its own while the state is read). Their cost is measured directly, by the same untaint on a
# tiny state (ten instances), encrypted and not: what the tiny encrypted write adds is the two
# derivations (side by side, on a machine with two cores) and nothing that grows with the state. So
#   beyond derivations = (encrypted - plaintext, 50 MB) - (encrypted - plaintext, tiny)
# Two orders, each a table:
#   warm:        each case RUNS times back to back (after one warm-up), as benchmarks usually run;
#   alternating: the four cases one after another, RUNS rounds, the figure the median of each
#                round's own differences. On a virtual machine that hands freed memory back to its
#                host (this one does), memory that no run freed just before costs system time to
#                touch again, and here the encrypted write always touches more than the plaintext
#                one before it freed: this order shows that cost, the warm one leaves it out.
# Wall time is the figure; user and system CPU time (GNU time) are shown beside it.
#   benches/encrypted_taint.sh [RUNS]
# Environment: STATECTL (default: cargo build --release, target/release/statectl).
set -euo pipefail

TIME=/usr/bin/time
[[ -x "$TIME" ]] || { echo "encrypted taint bench: needs GNU time at $TIME (Debian's time package)" >&2; exit 2; }
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${1:-9}"
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "encrypted taint bench: RUNS must be a positive integer" >&2; exit 2; }
log() { printf '%s\n' "$*" >&2; }
if [[ -z "${STATECTL:-}" ]]; then
  log "encrypted taint bench: cargo build --release"
  (cd "$ROOT" && cargo build --release >&2)
  STATECTL="$ROOT/target/release/statectl"
fi
mkdir -p "$ROOT/target/bench"
BIG="$ROOT/target/bench/state-20k.tfstate"
[[ -s "$BIG" ]] || python3 "$ROOT/benches/gen_state.py" --instances 20000 --out "$BIG"
TINY="$ROOT/target/bench/state-10.tfstate"
[[ -s "$TINY" ]] || python3 "$ROOT/benches/gen_state.py" --instances 10 --out "$TINY"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/encrypted-taint.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# OpenTofu's defaults: pbkdf2 (600,000 rounds of SHA-512, 32-byte key) and aes_gcm; the fallback
# lets the setup taint read the plaintext state and write it encrypted, as a migration does.
ENCRYPTION="$(cat "$ROOT/benches/opentofu-defaults.tfenc.hcl")"

# The pristine files: one instance tainted, in plaintext and in an envelope, for each size.
for size in big tiny; do
  src="$BIG"; [[ "$size" == tiny ]] && src="$TINY"
  address="$("$STATECTL" list "$src" | grep -Ev '(^|\.)data\.' | sed -n '3p')"
  printf '%s\n' "$address" > "$WORK/$size.address"
  cp "$src" "$WORK/$size-plain.tfstate"
  "$STATECTL" taint "$address" "$WORK/$size-plain.tfstate" --backup - >/dev/null 2>&1
  cp "$src" "$WORK/$size-enc.tfstate"
  TF_ENCRYPTION="$ENCRYPTION" "$STATECTL" taint "$address" "$WORK/$size-enc.tfstate" --backup - >/dev/null 2>&1
  head -c 20 "$WORK/$size-enc.tfstate" | grep -q '^{"serial":' || { log "encrypted taint bench: $size-enc is not an envelope"; exit 1; }
done
log "encrypted taint bench: $(stat -c %s "$WORK/big-plain.tfstate") bytes plaintext, $(stat -c %s "$WORK/big-enc.tfstate") bytes encrypted"

# run SIZE KIND: "wall user sys" seconds of one untaint of a fresh copy.
run() {
  local size="$1" kind="$2" address status=0 t0 t1 env=()
  address="$(cat "$WORK/$size.address")"
  [[ "$kind" == enc ]] && env=("TF_ENCRYPTION=$ENCRYPTION")
  cp "$WORK/$size-$kind.tfstate" "$WORK/run.tfstate"
  t0="${EPOCHREALTIME/,/.}"
  env "${env[@]}" "$TIME" -f '%U %S' -o "$WORK/time" \
    "$STATECTL" untaint "$address" "$WORK/run.tfstate" --backup - >/dev/null 2>"$WORK/stderr" || status=$?
  t1="${EPOCHREALTIME/,/.}"
  ((status == 0)) || { log "encrypted taint bench: $size-$kind untaint failed: $(cat "$WORK/stderr")"; exit 1; }
  printf '%s %s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')" "$(tail -n 1 "$WORK/time")"
}

MEDIAN_DECIMALS=4
# shellcheck source=benches/stats.sh
source "$ROOT/benches/stats.sh"
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a - b }'; }

CASES=(big_plain big_enc tiny_plain tiny_enc)
declare -A SAMPLES
# record ORDER CASE "wall user sys"
record() {
  local order="$1" case="$2" wall user sys
  read -r wall user sys <<<"$3"
  SAMPLES[$order.$case.w]+=" $wall" SAMPLES[$order.$case.u]+=" $user" SAMPLES[$order.$case.s]+=" $sys"
}

for case in "${CASES[@]}"; do
  for ((i = 0; i <= RUNS; i++)); do
    result="$(run "${case%_*}" "${case#*_}")"
    ((i == 0)) || record warm "$case" "$result"
  done
done
for ((round = 0; round <= RUNS; round++)); do
  declare -A this=()
  for case in "${CASES[@]}"; do this[$case]="$(run "${case%_*}" "${case#*_}")"; done
  ((round == 0)) && continue
  for case in "${CASES[@]}"; do record alternating "$case" "${this[$case]}"; done
  # The round's own differences, per measure.
  read -r bpw bpu bps <<<"${this[big_plain]}"; read -r bew beu bes <<<"${this[big_enc]}"
  read -r tpw tpu tps <<<"${this[tiny_plain]}"; read -r tew teu tes <<<"${this[tiny_enc]}"
  SAMPLES[alternating.derive.w]+=" $(minus "$tew" "$tpw")"
  SAMPLES[alternating.derive.u]+=" $(minus "$teu" "$tpu")"
  SAMPLES[alternating.derive.s]+=" $(minus "$tes" "$tps")"
  SAMPLES[alternating.beyond.w]+=" $(minus "$(minus "$bew" "$bpw")" "$(minus "$tew" "$tpw")")"
  SAMPLES[alternating.beyond.u]+=" $(minus "$(minus "$beu" "$bpu")" "$(minus "$teu" "$tpu")")"
  SAMPLES[alternating.beyond.s]+=" $(minus "$(minus "$bes" "$bps")" "$(minus "$tes" "$tps")")"
done
med() { median ${SAMPLES[$1]}; }
# The warm order's differences are of medians (its cases did not run side by side).
for m in w u s; do
  SAMPLES[warm.derive.$m]="$(minus "$(med warm.tiny_enc.$m)" "$(med warm.tiny_plain.$m)")"
  SAMPLES[warm.beyond.$m]="$(minus "$(minus "$(med warm.big_enc.$m)" "$(med warm.big_plain.$m)")" "${SAMPLES[warm.derive.$m]}")"
done

for order in warm alternating; do
  printf '\n`statectl untaint`, %s, medians of %d (seconds) | wall | user CPU | system CPU\n---|---:|---:|---:\n' "$order" "$RUNS"
  row() { printf '%s | %.3f | %.3f | %.3f\n' "$1" "$(med "$order.$2.w")" "$(med "$order.$2.u")" "$(med "$order.$2.s")"; }
  row "50 MB state, plaintext" big_plain
  row "50 MB state, encrypted (pbkdf2 600,000 rounds of SHA-512, aes_gcm: OpenTofu's defaults)" big_enc
  row "tiny state, plaintext" tiny_plain
  row "tiny state, encrypted" tiny_enc
  row "the key derivations: two, side by side (tiny: encrypted - plaintext)" derive
  row "**50 MB: cost beyond the derivations, above plaintext**" beyond
done
