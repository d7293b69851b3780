#!/usr/bin/env bash
# Benchmark of statectl on a remote (S3) state, against a plain GET and Terraform, on moto's server.
#
# This script owns the remote benchmark: it puts the 50 MB generated state (benches/gen_state.py,
# the same file bench.sh uses) into a bucket of moto's server on loopback, behind a Terraform
# working directory whose `backend "s3"` points there, and times in the same run:
#   reads:  `statectl list` (the backend found as Terraform records it) against a plain signed GET
#           of the same object (curl --aws-sigv4), boto3's GET, `statectl list` of a local copy (the
#           parsing alone), statectl's read of the object alone (its `-vv` "state read" timing, from
#           the request to the bytes in memory) and `terraform state list`;
#   writes: `statectl taint ADDR` against `terraform taint ADDR` on the same backend, the object
#           put back (untimed) before each run so that each run makes the same change.
# It prints a Markdown table (median wall time, ratio to the reference of its group) on stdout;
# progress goes to stderr.
#
#   benches/remote.sh [--runs R] [--locks lockfile|dynamodb|both]
#
#   --runs R    timed runs per command after one warm-up (default 5)
#   --locks K   the backend's lock kind (default lockfile: `use_lockfile = true`)
#
# Environment: STATECTL (default: cargo build --release, target/release/statectl), TERRAFORM
# (default target/terraform/bin/terraform), MOTO_SERVER (default target/moto/venv/bin/moto_server;
# scripts/install-moto.sh), its venv's python for boto3.
set -euo pipefail

RUNS=5
LOCKS=lockfile
# shellcheck source=benches/flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/flags.sh"
parse_flags "remote bench" 2,22 --runs=RUNS --locks=LOCKS -- "$@"
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "remote bench: --runs must be a positive integer" >&2; exit 2; }
case "$LOCKS" in
  lockfile) LOCK_LINES='    use_lockfile = true' ;;
  dynamodb) LOCK_LINES='    dynamodb_table = "locks"' ;;
  both) LOCK_LINES=$'    use_lockfile = true\n    dynamodb_table = "locks"' ;;
  *) echo "remote bench: --locks takes lockfile, dynamodb or both" >&2; exit 2 ;;
esac

BENCH="remote bench"
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TF="${TERRAFORM:-$ROOT/target/terraform/bin/terraform}"
require_tools "scripts/install-terraform.sh, scripts/install-moto.sh" "$TF" "$MOTO" "$PY"

release_statectl

STATE="$OUT/state-20k.tfstate"
if [[ ! -s "$STATE" ]]; then
  log "remote bench: generating $STATE"
  python3 "$ROOT/benches/gen_state.py" --instances 20000 --out "$STATE"
fi

# --- moto and the working directory ---------------------------------------------------------------
WORK="$(mktemp -d "$OUT/remote.XXXXXX")"
start_moto "$WORK"
KEY="bench/terraform.tfstate"

boto() { # boto PYTHON: runs PYTHON with `client(service)` for moto's server
  "$PY" -c "import boto3
def client(service):
    return boto3.client(service, endpoint_url='$URL', region_name='us-east-1')
$1"
}
boto "client('s3').create_bucket(Bucket='tfstate')
client('dynamodb').create_table(TableName='locks', KeySchema=[{'AttributeName': 'LockID', 'KeyType': 'HASH'}], AttributeDefinitions=[{'AttributeName': 'LockID', 'AttributeType': 'S'}], BillingMode='PAY_PER_REQUEST')"

cat >"$WORK/main.tf" <<EOF
terraform {
  backend "s3" {
    bucket = "tfstate"
    key = "$KEY"
    region = "us-east-1"
    endpoints = { s3 = "$URL", dynamodb = "$URL", sts = "$URL" }
    use_path_style = true
    skip_credentials_validation = true
    skip_requesting_account_id = true
    skip_metadata_api_check = true
$LOCK_LINES
  }
}
EOF
cd "$WORK"
"$TF" init -input=false -no-color >/dev/null
# Terraform itself puts the state there (and records its digest when a table is configured).
"$TF" state push "$STATE" >/dev/null
ADDRESS="$("$STATECTL" list "$STATE" | sed -n '1000p')"
log "remote bench: $(awk -v b="$(stat -c %s "$STATE")" 'BEGIN { printf "%.1f", b / 1e6 }') MB at s3://tfstate/$KEY on moto, locks: $LOCKS, $RUNS runs each; taint of $ADDRESS"

reset_state() { "$TF" state push -force "$STATE" >/dev/null 2>&1; }

# --- measuring -------------------------------------------------------------------------------------
MEDIAN_DECIMALS=3
ROWS=()
declare -A MEDIAN
# bench NAME RESET CMD...: one warm-up, then RUNS timed runs, RESET (untimed) before each.
bench() {
  local name="$1" reset="$2"; shift 2
  local walls=() i t0 t1
  $reset
  "$@" >/dev/null 2>"$WORK/stderr" || { log "remote bench: $name failed:"; head -n5 "$WORK/stderr" >&2; exit 1; }
  for ((i = 1; i <= RUNS; i++)); do
    $reset
    t0="${EPOCHREALTIME/,/.}"
    "$@" >/dev/null 2>"$WORK/stderr" || { log "remote bench: $name failed:"; head -n5 "$WORK/stderr" >&2; exit 1; }
    t1="${EPOCHREALTIME/,/.}"
    walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')")
  done
  MEDIAN[$name]="$(median "${walls[@]}")"
  log "remote bench: $name: ${MEDIAN[$name]}s"
}
# bench_read NAME CMD...: RUNS runs of a statectl command with `-vv`, timing only its read of the
# state (the `state read` debug line's elapsed_us), apart from process start and the parse.
bench_read() {
  local name="$1"; shift
  local reads=() i
  for ((i = 1; i <= RUNS; i++)); do
    "$@" >/dev/null 2>"$WORK/stderr" || { log "remote bench: $name failed:"; head -n5 "$WORK/stderr" >&2; exit 1; }
    reads+=("$(sed -n 's/.*state read.*elapsed_us=\([0-9]*\).*/\1/p' "$WORK/stderr" | awk '{ printf "%.6f", $1 / 1e6 }')")
  done
  MEDIAN[$name]="$(median "${reads[@]}")"
  log "remote bench: $name: ${MEDIAN[$name]}s"
}
ratio() { awk -v a="${MEDIAN[$1]}" -v b="${MEDIAN[$2]}" 'BEGIN { printf "%.2f", a / b }'; }

bench "plain GET (curl)" true curl -sf -o /dev/null --aws-sigv4 "aws:amz:us-east-1:s3" --user testing:testing "$URL/tfstate/$KEY"
bench "GET (python boto3)" true "$PY" -c "import boto3
boto3.client('s3', endpoint_url='$URL', region_name='us-east-1').get_object(Bucket='tfstate', Key='$KEY')['Body'].read()"
bench "statectl list (local copy)" true "$STATECTL" list "$STATE"
bench "statectl list" true "$STATECTL" list
bench_read "statectl read" "$STATECTL" -vv list
bench "terraform state list" true "$TF" state list
bench "terraform taint" reset_state "$TF" taint -no-color "$ADDRESS"
bench "statectl taint" reset_state "$STATECTL" taint "$ADDRESS" --backup -

printf '| command | median (s) | ratio |\n|---|---:|---:|\n'
printf '| plain GET (curl) | %s | 1.00 |\n' "${MEDIAN[plain GET (curl)]}"
printf '| GET (python boto3, interpreter included) | %s | %s × GET |\n' "${MEDIAN[GET (python boto3)]}" "$(ratio "GET (python boto3)" "plain GET (curl)")"
printf '| statectl list (the local copy: parsing alone) | %s | %s × GET |\n' "${MEDIAN[statectl list (local copy)]}" "$(ratio "statectl list (local copy)" "plain GET (curl)")"
printf '| statectl list | %s | %s × GET |\n' "${MEDIAN[statectl list]}" "$(ratio "statectl list" "plain GET (curl)")"
printf '| statectl list: its read of the object alone (`-vv` timing) | %s | %s × GET |\n' "${MEDIAN[statectl read]}" "$(ratio "statectl read" "plain GET (curl)")"
printf '| terraform state list | %s | %s × GET |\n' "${MEDIAN[terraform state list]}" "$(ratio "terraform state list" "plain GET (curl)")"
printf '| terraform taint | %s | 1.00 |\n' "${MEDIAN[terraform taint]}"
printf '| statectl taint | %s | %s × terraform |\n' "${MEDIAN[statectl taint]}" "$(ratio "statectl taint" "terraform taint")"
