#!/usr/bin/env bash
# Owns testdata/tour/terraform.tfstate: the state of README.md's tour, written by real Terraform
# 1.15.5 (scripts/install-terraform.sh) from main.tf beside it: apply, then taint
# terraform_data.app[1]. Ids, lineage and serial change on every run: README.md's examples elide
# them, and the console-example test (tests/integration/docs.rs) says where they differ.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
TF=${STATECTL_TERRAFORM:-$(scripts/install-terraform.sh | tail -n 1)}
export TF_IN_AUTOMATION=1 TF_INPUT=0 CHECKPOINT_DISABLE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp testdata/tour/main.tf "$work/"
cd "$work"
"$TF" init -no-color >/dev/null
"$TF" apply -auto-approve -no-color >/dev/null
"$TF" taint -no-color 'terraform_data.app[1]' >/dev/null
if grep -qF -e "$work" -e "$ROOT" terraform.tfstate; then
    echo "regen: the state holds a local path" >&2; exit 1
fi
cp terraform.tfstate "$ROOT/testdata/tour/terraform.tfstate"
echo testdata/tour/terraform.tfstate
