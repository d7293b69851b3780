#!/usr/bin/env bash
# Benchmark of `statectl refresh --reader plugin` against `terraform apply -refresh-only`, on loopback.
#
# This script owns the plugin-reader benchmark: real Terraform 1.15.5 applies 300 `aws_instance`s
# with the real AWS provider 3.39.0 into moto's server; 20 of them are then made stale (an
# interrupted async create: `pending`, no addresses). Each run, on a fresh copy of that state:
# `terraform apply -refresh-only -auto-approve` over the whole state, and `statectl refresh --reader
# plugin --write` of the 20 stale instances (what scan picks, no --target needed). Medians, ratio,
# peak RSS (as /usr/bin/time reports it: the largest of the process and its children, here the
# provider plugin); markdown on stdout, progress on stderr.
#
#   benches/plugin_bench.sh [--instances N] [--stale K] [--runs R]
set -euo pipefail

N=300
K=20
RUNS=3
while (($#)); do
  case "$1" in
    --instances) N="$2"; shift 2 ;;
    --stale) K="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "plugin_bench: unknown argument \`$1\`" >&2; exit 2 ;;
  esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/bench/plugin"
log() { printf '%s\n' "$*" >&2; }

log "plugin_bench: cargo build --release"
(cd "$ROOT" && cargo build --release --bin statectl >&2)
STATECTL="$ROOT/target/release/statectl"
TERRAFORM=$("$ROOT/scripts/install-terraform.sh" | tail -n 1)
MIRROR=$("$ROOT/scripts/install-aws-provider.sh" | tail -n 2 | head -n 1)
MOTO=$("$ROOT/scripts/install-moto.sh" | tail -n 1)

rm -rf "$OUT" && mkdir -p "$OUT/stack"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$MOTO" -H 127.0.0.1 -p "$PORT" > "$OUT/moto.log" 2>&1 &
MOTO_PID=$!
trap 'kill "$MOTO_PID" 2>/dev/null || true' EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done

ENDPOINT="http://127.0.0.1:$PORT"
cd "$OUT/stack"
cat > main.tf <<TF
terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "3.39.0" }
  }
}

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "testing"
  secret_key                  = "testing"
  skip_credentials_validation = true
  skip_metadata_api_check     = true
  skip_requesting_account_id  = true
  skip_get_ec2_platforms      = true
  endpoints {
    ec2 = "$ENDPOINT"
    sts = "$ENDPOINT"
    iam = "$ENDPOINT"
  }
}

resource "aws_instance" "fleet" {
  count         = $N
  ami           = "ami-12c6146b"
  instance_type = "t2.micro"
  tags          = { Name = "fleet-\${count.index}" }
}
TF
cat > cli.tfrc <<TF
provider_installation {
  filesystem_mirror {
    path    = "$MIRROR"
    include = ["registry.terraform.io/hashicorp/aws"]
  }
}
TF
export TF_CLI_CONFIG_FILE="$OUT/stack/cli.tfrc"
log "plugin_bench: terraform init and apply of $N instances into moto"
"$TERRAFORM" init -input=false -no-color > "$OUT/init.log"
"$TERRAFORM" apply -auto-approve -input=false -no-color -parallelism=20 > "$OUT/apply.log"

# The stale state: K instances, spread over the fleet, left as an interrupted async create leaves them.
python3 - "$N" "$K" <<'PY'
import json, sys
n, k = int(sys.argv[1]), int(sys.argv[2])
state = json.load(open("terraform.tfstate"))
state["serial"] += 1
instances = state["resources"][0]["instances"]
for position in range(0, n, n // k)[:k]:
    attributes = instances[position]["attributes"]
    attributes["instance_state"] = "pending"
    for name in ("public_ip", "private_ip", "public_dns", "private_dns"):
        attributes[name] = None
with open("stale.tfstate", "w") as out:
    json.dump(state, out, indent=2)
    out.write("\n")
PY

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# timed NAME COMMAND...: runs it (stdout to NAME.out, stderr to NAME.err), prints "wall kb".
timed() {
  local name="$1"; shift
  /usr/bin/time -f '%e %M' -o "$OUT/time.out" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err" || { log "plugin_bench: $name failed, see $OUT/$name.err"; exit 1; }
  cat "$OUT/time.out"
}

tf_walls=() tf_kb=() st_walls=() st_kb=()
for ((i = 1; i <= RUNS; i++)); do
  cp stale.tfstate terraform.tfstate
  read -r wall kb < <(timed terraform "$TERRAFORM" apply -refresh-only -auto-approve -input=false -no-color)
  tf_walls+=("$wall"); tf_kb+=("$kb")
  log "plugin_bench: run $i: terraform apply -refresh-only ${wall}s ${kb} KB"
  cp stale.tfstate terraform.tfstate
  read -r wall kb < <(timed statectl "$STATECTL" refresh --reader plugin --config . --write --backup - --format json)
  st_walls+=("$wall"); st_kb+=("$kb")
  refreshed=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for i in d["instances"] if i["outcome"]=="reconciled"))' "$OUT/statectl.out")
  if [[ "$refreshed" != "$K" ]]; then log "plugin_bench: statectl reconciled $refreshed of $K, see $OUT/statectl.out"; exit 1; fi
  log "plugin_bench: run $i: statectl refresh --reader plugin ${wall}s ${kb} KB, $refreshed reconciled"
done
tf=$(median "${tf_walls[@]}"); st=$(median "${st_walls[@]}")
echo "| command | instances read | median wall (s) | peak RSS (MB) |"
echo "|---|---:|---:|---:|"
echo "| \`terraform apply -refresh-only -auto-approve\` | $N | $tf | $(awk -v k="$(median "${tf_kb[@]}")" 'BEGIN { printf "%.0f", k / 1024 }') |"
echo "| \`statectl refresh --reader plugin --write\` | $K | $st | $(awk -v k="$(median "${st_kb[@]}")" 'BEGIN { printf "%.0f", k / 1024 }') |"
echo
echo "_statectl is $(awk -v a="$tf" -v b="$st" 'BEGIN { printf "%.1f", a / b }')x faster; $RUNS runs, medians; moto on loopback, 2 vCPUs._"
