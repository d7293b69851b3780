#!/usr/bin/env bash
# Benchmark of scan's memory over a bucket of many small states, on moto's server.
#
# This script owns the "memory stays flat" figure: N small states (default 100,000; 1.3 KB each,
# one `aws_instance`) put into one bucket of moto's server on loopback, twice: under `finding/`
# each instance tainted (one finding per state), under `clean/` none. Then `statectl scan
# s3://org/PREFIX/ --jobs J --format F` with its wall time and peak memory (GNU time's maximum
# resident set size): every report format over `finding/`, JSON and the table over `clean/`; and
# the same states scanned from a local folder (the same report path without the network). With
# --before BIN, the JSON rows for another build (the one before a change). moto serves about 250
# states a second here, so each bucket row of 100,000 takes minutes, and the upload a quarter of
# an hour.
# It prints a Markdown table (medians of R runs) on stdout; progress (the setup's time included)
# goes to stderr. A scan exits 1 when it has findings; that is success here.
#
#   benches/scan_memory.sh [--states N] [--runs R] [--jobs J] [--formats F] [--clean-formats F] [--before BIN]
#
#   --states N    states under each prefix (default 100000)
#   --runs R      runs per row (default 3)
#   --jobs J      states read at once (default 8)
#   --formats F   the formats over finding/ (default: every one)
#   --clean-formats F  the formats over clean/ (default: "json table"; "" leaves clean/ out)
#   --before BIN  also measure this binary (JSON rows)
#
# Environment: STATECTL (default: cargo build --release, target/release/statectl), MOTO_SERVER
# (default target/moto/venv/bin/moto_server; scripts/install-moto.sh), its venv's python for boto3.
set -euo pipefail

STATES=100000
RUNS=3
JOBS=8
FORMATS="json sarif junit github gitlab markdown table"
CLEAN_FORMATS="json table"
BEFORE=""
# shellcheck source=benches/flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/flags.sh"
parse_flags "memory bench" 2,27 --states=STATES --runs=RUNS --jobs=JOBS --formats=FORMATS --clean-formats=CLEAN_FORMATS --before=BEFORE -- "$@"
for value in "$STATES" "$RUNS" "$JOBS"; do
  [[ "$value" =~ ^[1-9][0-9]*$ ]] || { echo "memory bench: \`$value\` is not a positive integer" >&2; exit 2; }
done

BENCH="memory bench"
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
now() { printf '%s' "${EPOCHREALTIME/,/.}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

require_tools "scripts/install-moto.sh, GNU time" "$MOTO" "$PY" /usr/bin/time
[[ -z "$BEFORE" || -x "$BEFORE" ]] || { log "memory bench: --before $BEFORE is not a program"; exit 2; }

release_statectl

# --- the states: one small state each, tainted or not ----------------------------------------------
STATES_DIR="$OUT/memory-$STATES"
if [[ ! -s "$STATES_DIR/.complete" ]]; then
  log "memory bench: writing $STATES states twice into $STATES_DIR"
  rm -rf "$STATES_DIR"
  python3 - "$STATES_DIR" "$STATES" <<'EOF'
import json, os, sys
folder, count = sys.argv[1], int(sys.argv[2])
for kind in ("finding", "clean"):
    os.makedirs(os.path.join(folder, kind))
for i in range(count):
    instance = {"schema_version": 1, "attributes": {
        "ami": "ami-0c55b159cbfafe1f0", "arn": f"arn:aws:ec2:us-east-1:123456789012:instance/i-{i:017x}",
        "id": f"i-{i:017x}", "instance_type": "t3.micro", "private_ip": f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}",
        "subnet_id": "subnet-0a1b2c3d", "tags": {"Name": f"web-{i}", "team": "platform"},
        "vpc_security_group_ids": ["sg-0123456789abcdef0"]}, "sensitive_attributes": []}
    for kind in ("finding", "clean"):
        body = dict(instance, status="tainted") if kind == "finding" else instance
        state = {"version": 4, "terraform_version": "1.15.5", "serial": 3,
                 "lineage": f"6f1c2d3e-0000-4000-8000-{i:012x}", "outputs": {},
                 "resources": [{"mode": "managed", "type": "aws_instance", "name": "web",
                                "provider": 'provider["registry.terraform.io/hashicorp/aws"]',
                                "instances": [body]}], "check_results": None}
        with open(os.path.join(folder, kind, f"ws-{i:06d}.tfstate"), "w") as f:
            f.write(json.dumps(state, indent=2) + "\n")
EOF
  date >"$STATES_DIR/.complete"
fi

# --- moto and the bucket ---------------------------------------------------------------------------
WORK="$(mktemp -d "$OUT/scan-memory.XXXXXX")"
start_moto "$WORK"
export AWS_REGION=us-east-1 AWS_ENDPOINT_URL_S3="$URL"

SETS="finding"
[[ -n "${CLEAN_FORMATS// /}" ]] && SETS="finding clean"
log "memory bench: uploading $STATES objects for each of: $SETS, to s3://org/ on moto (timed, not part of the rows)"
T0="$(now)"
"$PY" - "$URL" "$STATES_DIR" $SETS <<'EOF'
import os, sys
from concurrent.futures import ThreadPoolExecutor
import boto3
url, folder, sets = sys.argv[1], sys.argv[2], sys.argv[3:]
s3 = boto3.client("s3", endpoint_url=url, region_name="us-east-1")
s3.create_bucket(Bucket="org")
def put(pair):
    kind, name = pair
    with open(os.path.join(folder, kind, name), "rb") as f:
        s3.put_object(Bucket="org", Key=f"{kind}/{name[:-len('.tfstate')]}/terraform.tfstate", Body=f.read())
pairs = [(kind, name) for kind in sets for name in sorted(os.listdir(os.path.join(folder, kind)))]
with ThreadPoolExecutor(8) as pool:
    list(pool.map(put, pairs))
EOF
log "memory bench: setup (upload) took $(since "$T0") s"

MEDIAN_DECIMALS=1
# row LABEL EXPECTED CMD...: RUNS runs; the report must name EXPECTED states (JSON), exit 0 or 1.
row() {
  local label="$1" expected="$2"; shift 2
  local walls=() peaks=() i code t0
  for ((i = 1; i <= RUNS; i++)); do
    code=0
    t0="$(now)"
    /usr/bin/time -f '%M' -o "$WORK/peak" "$@" >"$WORK/report" 2>"$WORK/stderr" || code=$?
    walls+=("$(since "$t0")")
    ((code <= 1)) || { log "memory bench: $label exited $code:"; tail -n5 "$WORK/stderr" >&2; exit 1; }
    peaks+=("$(awk '{ printf "%.1f", $1 / 1024 }' <(tail -n1 "$WORK/peak"))")
  done
  if [[ "$expected" != - ]]; then
    local got
    got="$(jq '.states | length' "$WORK/report")"
    [[ "$got" == "$expected" ]] || { log "memory bench: $label reported $got states, not $expected"; exit 1; }
  fi
  printf '| %s | %s | %s |\n' "$label" "$(median "${walls[@]}")" "$(median "${peaks[@]}")"
  log "memory bench: $label: $(median "${walls[@]}") s, $(median "${peaks[@]}") MB"
}

printf '| %s states on moto, --jobs %s, medians of %s | wall (s) | peak RSS (MB) |\n|---|---:|---:|\n' "$STATES" "$JOBS" "$RUNS"
for set in $SETS; do
  formats="$FORMATS"
  [[ "$set" == clean ]] && formats="$CLEAN_FORMATS"
  for format in $formats; do
    expected=-
    [[ "$format" == json ]] && expected="$STATES"
    row "\`scan s3://org/$set/ --format $format\` ($set)" "$expected" \
      "$STATECTL" scan "s3://org/$set/" --jobs "$JOBS" --format "$format"
  done
  row "\`scan DIR --format json\` (local copy, $set)" "$STATES" \
    "$STATECTL" scan "$STATES_DIR/$set" --jobs "$JOBS" --format json
  if [[ -n "$BEFORE" ]]; then
    row "before: \`scan s3://org/$set/ --format json\` ($set)" "$STATES" \
      "$BEFORE" scan "s3://org/$set/" --jobs "$JOBS" --format json
  fi
done
