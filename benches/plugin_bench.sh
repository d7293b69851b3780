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
# shellcheck source=benches/flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/flags.sh"
parse_flags "plugin_bench" 2,12 --instances=N --stale=K --runs=RUNS -- "$@"

BENCH="plugin_bench"
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT="$ROOT/target/bench/plugin"
rm -rf "$OUT" && mkdir -p "$OUT/stack" "$OUT/moto"
release_statectl
terraform_aws_tools
require_tools "scripts/install-terraform.sh, scripts/install-aws-provider.sh, scripts/install-moto.sh, GNU time" "$TERRAFORM" "$MOTO" "$PY" /usr/bin/time
start_moto "$OUT/moto"

ENDPOINT="$URL"
cd "$OUT/stack"
cp "$ROOT/testdata/aws/moto.tf" .
echo "endpoint = \"$ENDPOINT\"" > terraform.tfvars
cat > main.tf <<TF
resource "aws_instance" "fleet" {
  count         = $N
  ami           = "ami-12c6146b"
  instance_type = "t2.micro"
  tags          = { Name = "fleet-\${count.index}" }
}
TF
mirror_cli_config "$OUT/stack/cli.tfrc"
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

tf_walls=() tf_kb=() st_walls=() st_kb=()
for ((i = 1; i <= RUNS; i++)); do
  cp stale.tfstate terraform.tfstate
  read -r wall kb < <(timed terraform 0 "$TERRAFORM" apply -refresh-only -auto-approve -input=false -no-color)
  tf_walls+=("$wall"); tf_kb+=("$kb")
  log "plugin_bench: run $i: terraform apply -refresh-only ${wall}s ${kb} KB"
  cp stale.tfstate terraform.tfstate
  read -r wall kb < <(timed statectl 0 "$STATECTL" refresh --reader plugin --config . --write --backup - --format json)
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
