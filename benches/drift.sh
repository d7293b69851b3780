#!/usr/bin/env bash
# Benchmark of `statectl drift` against `terraform plan -refresh-only -detailed-exitcode`, on loopback.
#
# This script owns the drift benchmark: real Terraform 1.15.5 applies testdata/drift/aws at scale 6
# (301 instances of seven types) with the real AWS provider 3.39.0 into moto's server. Each round,
# interleaved: `terraform plan -refresh-only -detailed-exitcode` (the whole state), `statectl drift`
# (the whole state) and `statectl drift --type aws_ebs_volume` (36 instances, about a tenth). Both
# tools read with parallelism 10 (their defaults). Medians, ratios, peak RSS (as /usr/bin/time
# reports it: the largest of the process and its children, the provider plugin here); markdown on
# stdout, progress on stderr.
#
#   benches/drift.sh [--scale S] [--runs R] [--statectl PATH]
set -euo pipefail

SCALE=6
RUNS=5
STATECTL=""
# shellcheck source=benches/flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/flags.sh"
parse_flags "drift bench" 2,12 --scale=SCALE --runs=RUNS --statectl=STATECTL -- "$@"

BENCH="drift bench"
# shellcheck source=benches/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT="$ROOT/target/bench/drift"
rm -rf "$OUT" && mkdir -p "$OUT/stack"
release_statectl
terraform_aws_tools
require_tools "scripts/install-terraform.sh, scripts/install-aws-provider.sh, scripts/install-moto.sh, GNU time" "$TERRAFORM" "$MOTO" "$PY" /usr/bin/time
mkdir -p "$OUT/moto" && start_moto "$OUT/moto"

ENDPOINT="$URL"
cd "$OUT/stack"
cp "$ROOT/testdata/drift/aws/main.tf" "$ROOT/testdata/aws/moto.tf" .
# The endpoint is a variable: Terraform takes it as one, statectl in a --provider-config file.
cat > terraform.tfvars <<TF
endpoint = "$ENDPOINT"
scale    = $SCALE
TF
printf '{"endpoints":[{"ec2":"%s","s3":"%s","sts":"%s","iam":"%s"}]}\n' "$ENDPOINT" "$ENDPOINT" "$ENDPOINT" "$ENDPOINT" > endpoints.json
mirror_cli_config "$OUT/stack/cli.tfrc"
log "drift bench: terraform init and apply (scale $SCALE) into moto"
"$TERRAFORM" init -input=false -no-color > "$OUT/init.log"
"$TERRAFORM" apply -auto-approve -input=false -no-color -parallelism=20 > "$OUT/apply.log"
INSTANCES=$(python3 -c 'import json; s=json.load(open("terraform.tfstate")); print(sum(len(r["instances"]) for r in s["resources"] if r["mode"]=="managed"))')
NARROW=$(python3 -c 'import json; s=json.load(open("terraform.tfstate")); print(sum(len(r["instances"]) for r in s["resources"] if r["type"]=="aws_ebs_volume"))')
cp terraform.tfstate applied.tfstate

tf_walls=() tf_kb=() all_walls=() all_kb=() narrow_walls=() narrow_kb=() tf_moto=() all_moto=() narrow_moto=() tf_cpu=() all_cpu=() narrow_cpu=()
for ((i = 1; i <= RUNS; i++)); do
  # terraform exits 2 here: it reports the provider's `tags = {}` reads as drift.
  read -r wall kb < <(timed terraform "0 2" "$TERRAFORM" plan -refresh-only -detailed-exitcode -input=false -no-color)
  tf_walls+=("$wall"); tf_kb+=("$kb"); tf_moto+=("$(cat "$OUT/terraform.moto")") tf_cpu+=("$(cat "$OUT/terraform.cpu")")
  log "drift bench: run $i: terraform plan -refresh-only ${wall}s ${kb} KB"
  read -r wall kb < <(timed statectl "0" "$STATECTL" drift --config . --provider-config "aws=endpoints.json")
  all_walls+=("$wall"); all_kb+=("$kb"); all_moto+=("$(cat "$OUT/statectl.moto")") all_cpu+=("$(cat "$OUT/statectl.cpu")")
  log "drift bench: run $i: statectl drift ${wall}s ${kb} KB: $(tail -n 2 "$OUT/statectl.out" | tr '\n' ' ')"
  read -r wall kb < <(timed narrow "0" "$STATECTL" drift --config . --provider-config "aws=endpoints.json" --type aws_ebs_volume)
  narrow_walls+=("$wall"); narrow_kb+=("$kb"); narrow_moto+=("$(cat "$OUT/narrow.moto")") narrow_cpu+=("$(cat "$OUT/narrow.cpu")")
  log "drift bench: run $i: statectl drift --type aws_ebs_volume ${wall}s ${kb} KB"
done
cmp -s terraform.tfstate applied.tfstate || { log "drift bench: the state changed"; exit 1; }
tf=$(median "${tf_walls[@]}"); all=$(median "${all_walls[@]}"); narrow=$(median "${narrow_walls[@]}")
mb() { awk -v k="$(median "$@")" 'BEGIN { printf "%.0f", k / 1024 }'; }
echo "| command | instances read | median wall (s) | moto's CPU (s) | client's CPU (s) | peak RSS (MB) |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| \`terraform plan -refresh-only -detailed-exitcode\` | $INSTANCES | $tf | $(median "${tf_moto[@]}") | $(median "${tf_cpu[@]}") | $(mb "${tf_kb[@]}") |"
echo "| \`statectl drift\` | $INSTANCES | $all | $(median "${all_moto[@]}") | $(median "${all_cpu[@]}") | $(mb "${all_kb[@]}") |"
echo "| \`statectl drift --type aws_ebs_volume\` | $NARROW | $narrow | $(median "${narrow_moto[@]}") | $(median "${narrow_cpu[@]}") | $(mb "${narrow_kb[@]}") |"
echo
echo "_statectl drift is $(awk -v a="$tf" -v b="$all" 'BEGIN { printf "%.1f", a / b }')x faster on the whole state, $(awk -v a="$tf" -v b="$narrow" 'BEGIN { printf "%.1f", a / b }')x with --type; $RUNS interleaved runs, medians; moto on loopback. moto's CPU is what its server spent answering each command's requests: one Python process, so no client of it can finish sooner. The client's CPU is the command's and its provider plugins' (GNU time's user + system)._"
