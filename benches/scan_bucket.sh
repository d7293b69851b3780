#!/usr/bin/env bash
# Benchmark of `statectl scan s3://bucket/` over an organisation's states, on moto's server.
#
# This script owns the organisation-scale benchmark: 2,000 generated states of mixed size (10 KB to
# 5 MB, about 300 MB in all; benches/gen_state.py --many --total-mb) put into one bucket of moto's
# server on loopback as the workspaces of one `backend "s3"` (`env:/ws-NNNN/terraform.tfstate`), then
# timed in the same run:
#   statectl:  `statectl scan s3://org/ --jobs J --format json` (list, read, scan, report), with its
#              peak memory (GNU time's maximum resident set size);
#   baseline:  the same objects listed and downloaded by a plain HTTP client (curl with SigV4, J
#              processes at once), then `statectl scan DIR --jobs J --format json` of the copy;
#   terraform: a loop of `terraform state pull` per workspace, over a sample of the workspaces
#              (--sample; a loop over all 2,000 would take most of an hour), per state and
#              extrapolated to all of them.
# It prints a Markdown table (median wall time, ratio to the baseline) on stdout; progress goes to
# stderr. The scan exits 1 when it has findings (the generated states have some); that is success.
#
#   benches/scan_bucket.sh [--runs R] [--states K] [--total-mb T] [--jobs J] [--sample N]
#
#   --runs R      timed runs per command after one warm-up (default 3)
#   --states K    states in the bucket (default 2000)
#   --total-mb T  their size in all (default 300)
#   --jobs J      states read at once, by statectl and by the baseline (default 8)
#   --sample N    workspaces in the terraform loop (default 20)
#
# Environment: STATECTL (default: cargo build --release, target/release/statectl), TERRAFORM
# (default target/terraform/bin/terraform), MOTO_SERVER (default target/moto/venv/bin/moto_server;
# scripts/install-moto.sh), its venv's python for boto3 (the untimed upload).
set -euo pipefail

RUNS=3
STATES=2000
TOTAL_MB=300
JOBS=8
SAMPLE=20
# shellcheck source=benches/flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/flags.sh"
parse_flags "scan bench" 2,28 --runs=RUNS --states=STATES --total-mb=TOTAL_MB --jobs=JOBS --sample=SAMPLE -- "$@"
for value in "$RUNS" "$STATES" "$TOTAL_MB" "$JOBS" "$SAMPLE"; do
  [[ "$value" =~ ^[1-9][0-9]*$ ]] || { echo "scan bench: \`$value\` is not a positive integer" >&2; exit 2; }
done

BENCH="scan bench"
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TF="${TERRAFORM:-$ROOT/target/terraform/bin/terraform}"
require_tools "scripts/install-terraform.sh, scripts/install-moto.sh, GNU time" "$TF" "$MOTO" "$PY" /usr/bin/time

release_statectl

STATES_DIR="$OUT/org-$STATES-${TOTAL_MB}mb"
if [[ ! -s "$STATES_DIR/.complete" ]]; then
  log "scan bench: generating $STATES states, about $TOTAL_MB MB, into $STATES_DIR"
  rm -rf "$STATES_DIR"
  # Its line per state is noise here, but its complaint (a size it cannot make) is not.
  python3 "$ROOT/benches/gen_state.py" --many "$STATES" --total-mb "$TOTAL_MB" --out-dir "$STATES_DIR" 2>"$OUT/gen.log" \
    || { tail -n 1 "$OUT/gen.log" >&2; exit 2; }
  date >"$STATES_DIR/.complete"
fi

# --- moto, the bucket and the working directory ----------------------------------------------------
WORK="$(mktemp -d "$OUT/scan-bucket.XXXXXX")"
start_moto "$WORK"
export AWS_REGION=us-east-1 AWS_ENDPOINT_URL_S3="$URL"

log "scan bench: uploading to s3://org/ on moto (untimed)"
"$PY" - "$URL" "$STATES_DIR" <<'EOF'
import os, sys
from concurrent.futures import ThreadPoolExecutor
import boto3
url, folder = sys.argv[1], sys.argv[2]
s3 = boto3.client("s3", endpoint_url=url, region_name="us-east-1")
s3.create_bucket(Bucket="org")
names = sorted(n for n in os.listdir(folder) if n.endswith(".tfstate"))
def put(pair):
    i, name = pair
    with open(os.path.join(folder, name), "rb") as f:
        s3.put_object(Bucket="org", Key=f"env:/ws-{i:04d}/terraform.tfstate", Body=f.read())
with ThreadPoolExecutor(8) as pool:
    list(pool.map(put, enumerate(names)))
EOF
BYTES="$(du -sb --exclude=.complete "$STATES_DIR" | cut -f1)"
log "scan bench: $STATES states, $(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1e6 }') MB, $JOBS at once, $RUNS runs each"

cat >"$WORK/main.tf" <<EOF
terraform {
  backend "s3" {
    bucket = "org"
    key = "terraform.tfstate"
    region = "us-east-1"
    endpoints = { s3 = "$URL", sts = "$URL" }
    use_path_style = true
    skip_credentials_validation = true
    skip_requesting_account_id = true
    skip_metadata_api_check = true
  }
}
EOF

# --- the three ways --------------------------------------------------------------------------------
SIGN=(--aws-sigv4 "aws:amz:us-east-1:s3" --user testing:testing)
# Every key of the bucket, page by page, as any client must list it.
list_keys() {
  local token="" page
  while :; do
    page="$(curl -sf "${SIGN[@]}" -G "$URL/org" --data-urlencode list-type=2 ${token:+--data-urlencode "continuation-token=$token"})"
    grep -o '<Key>[^<]*</Key>' <<<"$page" | sed 's/<Key>\(.*\)<\/Key>/\1/'
    grep -q '<IsTruncated>true</IsTruncated>' <<<"$page" || break
    token="$(sed -n 's/.*<NextContinuationToken>\([^<]*\)<\/NextContinuationToken>.*/\1/p' <<<"$page")"
  done
}
# Downloads the keys given as arguments into $DL, one curl (one connection) for all of them.
fetch_keys() {
  local args=() key
  for key in "$@"; do args+=(-o "$DL/$key" "$URL/org/$key"); done
  curl -sf --create-dirs --aws-sigv4 "aws:amz:us-east-1:s3" --user testing:testing "${args[@]}"
}
export -f fetch_keys
export URL
download() {
  rm -rf "$WORK/copy"
  mkdir -p "$WORK/copy"
  list_keys | DL="$WORK/copy" xargs -P "$JOBS" -n 25 bash -c 'fetch_keys "$@"' _
}
baseline() {
  download
  scan_ok "$STATECTL" scan "$WORK/copy" --jobs "$JOBS" --format json
}
# Runs a scan: exit 1 (findings) is success, anything else is not.
scan_ok() {
  local code=0
  "$@" >"$WORK/report.json" || code=$?
  ((code <= 1)) || return "$code"
}
statectl_scan() { scan_ok "$STATECTL" scan s3://org/ --jobs "$JOBS" --format json; }

MEDIAN_DECIMALS=3
declare -A MEDIAN
# bench NAME CMD...: one warm-up, then RUNS timed runs.
bench() {
  local name="$1"; shift
  local walls=() i t0 t1
  "$@" 2>"$WORK/stderr" || { log "scan bench: $name failed:"; head -n5 "$WORK/stderr" >&2; exit 1; }
  for ((i = 1; i <= RUNS; i++)); do
    t0="${EPOCHREALTIME/,/.}"
    "$@" 2>"$WORK/stderr" || { log "scan bench: $name failed:"; head -n5 "$WORK/stderr" >&2; exit 1; }
    t1="${EPOCHREALTIME/,/.}"
    walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')")
  done
  MEDIAN[$name]="$(median "${walls[@]}")"
  log "scan bench: $name: ${MEDIAN[$name]}s"
}

bench "statectl scan s3://org/" statectl_scan
SCANNED="$(jq '.states | length' "$WORK/report.json")"
[[ "$SCANNED" == "$STATES" ]] || { log "scan bench: the report has $SCANNED states, not $STATES"; exit 1; }
bench "curl download + local scan" baseline
bench "curl download alone" download
COPIED="$(find "$WORK/copy" -name '*.tfstate' | wc -l)"
[[ "$COPIED" == "$STATES" ]] || { log "scan bench: the baseline downloaded $COPIED states, not $STATES"; exit 1; }

# Peak memory of the scan alone, and with many more readers at once.
peak_kb() { /usr/bin/time -f '%M' -o "$WORK/peak" "$@" >/dev/null 2>&1 || true; cat "$WORK/peak" | tail -n1; }
PEAK="$(peak_kb "$STATECTL" scan s3://org/ --jobs "$JOBS" --format json)"
PEAK32="$(peak_kb "$STATECTL" scan s3://org/ --jobs 32 --format json)"
log "scan bench: peak memory $((PEAK / 1024)) MB at --jobs $JOBS, $((PEAK32 / 1024)) MB at --jobs 32"

# Terraform, one workspace after another, over a sample.
cd "$WORK"
"$TF" init -input=false -no-color >/dev/null
terraform_loop() {
  local i
  for ((i = 0; i < SAMPLE; i++)); do
    TF_WORKSPACE="$(printf 'ws-%04d' $((i * STATES / SAMPLE)))" "$TF" state pull >/dev/null
  done
}
bench "terraform state pull loop (sample)" terraform_loop

per_state() { awk -v t="${MEDIAN[$1]}" -v n="$2" 'BEGIN { printf "%.4f", t / n }'; }
TF_PER="$(per_state "terraform state pull loop (sample)" "$SAMPLE")"
TF_ALL="$(awk -v p="$TF_PER" -v n="$STATES" 'BEGIN { printf "%.1f", p * n }')"
ST="${MEDIAN[statectl scan s3://org/]}"
BASE="${MEDIAN[curl download + local scan]}"

printf '| %s states, %s MB, %s at once | median (s) | per state (s) | ratio |\n|---|---:|---:|---:|\n' \
  "$STATES" "$(awk -v b="$BYTES" 'BEGIN { printf "%.0f", b / 1e6 }')" "$JOBS"
printf '| curl: list + download, then `statectl scan` of the copy | %s | %s | 1.00 |\n' "$BASE" "$(per_state "curl download + local scan" "$STATES")"
printf '| (of which curl: list + download alone) | %s | %s | %s |\n' "${MEDIAN[curl download alone]}" "$(per_state "curl download alone" "$STATES")" \
  "$(awk -v a="${MEDIAN[curl download alone]}" -v b="$BASE" 'BEGIN { printf "%.2f", a / b }')"
printf '| `statectl scan s3://org/` | %s | %s | %s × baseline |\n' "$ST" "$(per_state "statectl scan s3://org/" "$STATES")" \
  "$(awk -v a="$ST" -v b="$BASE" 'BEGIN { printf "%.2f", a / b }')"
printf '| `terraform state pull` per workspace (%s sampled, extrapolated) | %s | %s | %s × statectl |\n' \
  "$SAMPLE" "$TF_ALL" "$TF_PER" "$(awk -v a="$TF_ALL" -v b="$ST" 'BEGIN { printf "%.1f", a / b }')"
printf '\npeak memory of `statectl scan s3://org/`: %s MB (--jobs %s), %s MB (--jobs 32)\n' \
  "$((PEAK / 1024))" "$JOBS" "$((PEAK32 / 1024))"
