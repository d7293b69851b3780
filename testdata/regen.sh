#!/usr/bin/env bash
# Owns testdata/states/*.tfstate: regenerates them with real Terraform
# (scripts/install-terraform.sh) from the configurations in testdata/terraform/<case>/.
# Usage: testdata/regen.sh [case ...]   (no argument: every case)
# Lineages, ids and serials change on every run: that is expected.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
TF=$(scripts/install-terraform.sh | tail -n 1)
export TF_IN_AUTOMATION=1 TF_INPUT=0

LOG=
# tf SUBCOMMAND ARGS...: run Terraform, output to the case's log.
tf() { local sub=$1; shift; "$TF" "$sub" -no-color "$@" >>"$LOG" 2>&1; }
# On failure, show what Terraform said (and keep the work dir for a look).
trap 'rc=$?; if [ $rc -ne 0 ] && [ -f "$LOG" ]; then cat "$LOG" >&2; echo "regen: failed in $work" >&2; fi' EXIT

if [ $# -eq 0 ]; then
    set -- $(cd testdata/terraform && ls -d */ | tr -d /)
fi

mkdir -p testdata/states
for case in "$@"; do
    [ -d "testdata/terraform/$case" ] || { echo "regen: no such case: $case" >&2; exit 1; }
    work=$(mktemp -d)
    LOG="$work/regen.log"
    cp -R "testdata/terraform/$case/." "$work/"
    cd "$work"

    # A case may ship an upstream/ configuration whose state its data sources read.
    if [ -d upstream ]; then
        (cd upstream && tf init && tf apply -auto-approve)
    fi
    tf init
    tf apply -auto-approve

    case "$case" in
    lifecycle)
        # The create-before-destroy replacement fails on purpose (see its main.tf),
        # leaving a tainted new object and a deposed old one.
        if tf apply -auto-approve -var generation=2; then
            echo "regen: $case: the second apply was expected to fail" >&2; exit 1
        fi
        tf taint 'terraform_data.workers[1]'
        ;;
    opentofu_hosts)
        # Providers moved to registry.opentofu.org, and a `private` on some instances (see main.tf);
        # then Terraform writes the file once more, with no configuration beside it.
        python3 - terraform.tfstate <<'PY'
import json, sys
path = sys.argv[1]
state = json.load(open(path))
for resource in state["resources"]:
    resource["provider"] = resource["provider"].replace(
        "terraform.io/builtin/terraform", "registry.opentofu.org/hashicorp/terraform")
    if resource["name"] in ("cbd", "workers", "keyed"):
        for instance in resource["instances"]:
            instance["private"] = "eyJzY2hlbWFfdmVyc2lvbiI6IjEifQ=="
json.dump(state, open(path, "w"))
PY
        mkdir rewrite && mv terraform.tfstate rewrite/
        (cd rewrite && tf taint -state=terraform.tfstate 'terraform_data.workers[1]')
        mv rewrite/terraform.tfstate .
        ;;
    esac

    cp terraform.tfstate "$ROOT/testdata/states/$case.tfstate"
    cd "$ROOT"
    rm -rf "$work"
    echo "testdata/states/$case.tfstate"
done
