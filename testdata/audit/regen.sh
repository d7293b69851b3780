#!/usr/bin/env bash
# Owns the generated files of testdata/audit/<case>/: terraform.tfstate, plan.json,
# plan-destroy.json and plan-error.txt. They are made by real Terraform 1.15.5
# (scripts/install-terraform.sh) from the configuration kept in each case folder:
# main.tf (and modules/), the last configuration planned, plus step1.tf.txt when the
# case first applies another configuration. See testdata/audit/README.md.
# Usage: testdata/audit/regen.sh [case ...]   (no argument: every case)
# Each case runs in a temporary copy of its .tf files; only the outputs listed above
# are copied back (overwritten), never .terraform/ or the lock file.
# Ids, lineages and timestamps change on every run: that is expected.
# plan*.json: `terraform show -json` pretty-printed by `python3 -m json.tool --indent 2
# --no-ensure-ascii` (same values and key order; Terraform writes it on one line).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
AUDIT="$ROOT/testdata/audit"
TF=$(scripts/install-terraform.sh | tail -n 1)
export TF_IN_AUTOMATION=1 TF_INPUT=0 CHECKPOINT_DISABLE=1

LOG=
work=
# tf SUBCOMMAND ARGS...: run Terraform, output to the case's log.
tf() { local sub=$1; shift; "$TF" "$sub" -no-color "$@" >>"$LOG" 2>&1; }
# tf_fails SUBCOMMAND ARGS...: like tf, for a command that must fail.
tf_fails() {
    if tf "$@"; then echo "regen: $case: terraform $1 was expected to fail" >&2; exit 1; fi
}
# show_json PLANFILE OUT: the plan as JSON, pretty-printed.
show_json() {
    "$TF" show -no-color -json "$1" >"$1.json" 2>>"$LOG"
    python3 -m json.tool --indent 2 --no-ensure-ascii "$1.json" >"$2"
}
# use_final_config: step1.tf.txt was applied as main.tf; put the case's main.tf back.
use_final_config() { cp main.tf.final main.tf; rm main.tf.final; }
# On failure, show what Terraform said (and keep the work dir for a look).
trap 'rc=$?; if [ $rc -ne 0 ] && [ -n "$work" ]; then if [ -f "$LOG" ]; then cat "$LOG" >&2; fi; echo "regen: failed in $work" >&2; fi' EXIT

if [ $# -eq 0 ]; then
    set -- $(cd "$AUDIT" && ls -d */ | tr -d /)
fi

for case in "$@"; do
    dir="$AUDIT/$case"
    [ -f "$dir/main.tf" ] || { echo "regen: no such case: $case" >&2; exit 1; }
    work=$(mktemp -d)
    LOG="$work/regen.log"
    # The configuration only (.tf, .tf.txt, with their folders), not the outputs.
    (cd "$dir" && find . -type f \( -name '*.tf' -o -name '*.tf.txt' \)) | while IFS= read -r f; do
        mkdir -p "$work/$(dirname "$f")"
        cp "$dir/$f" "$work/$f"
    done
    cd "$work"
    if [ -f step1.tf.txt ]; then
        mv main.tf main.tf.final
        cp step1.tf.txt main.tf
    fi
    outputs=(terraform.tfstate plan.json)

    tf init
    case "$case" in
    destroy)
        tf apply -auto-approve
        tf plan -destroy -out=plan.out
        ;;
    removed-forget)
        tf apply -auto-approve             # step1.tf.txt: keep and legacy
        use_final_config                   # legacy's block gone, removed { destroy = false }
        tf plan -out=plan.out
        tf plan -destroy -out=plan-destroy.out
        outputs+=(plan-destroy.json)
        ;;
    tainted-replace)
        tf apply -auto-approve
        tf taint terraform_data.plain
        tf taint terraform_data.cbd
        tf plan -out=plan.out
        ;;
    deposed)
        tf apply -auto-approve -var generation=1
        # The create-before-destroy replacement fails on purpose (see main.tf).
        tf_fails apply -auto-approve -var provisioner_fails=true
        grep -q '"deposed"' terraform.tfstate || { echo "regen: $case: no deposed object in the state" >&2; exit 1; }
        tf plan -out=plan.out
        tf plan -destroy -out=plan-destroy.out
        outputs+=(plan-destroy.json)
        ;;
    prevent-destroy)
        tf apply -auto-approve
        if "$TF" plan -no-color -destroy -out=plan.out >>"$LOG" 2>plan-error.txt; then
            echo "regen: $case: terraform plan -destroy was expected to fail" >&2; exit 1
        fi
        grep -q 'Instance cannot be destroyed' plan-error.txt
        # Terraform still saves the plan it could not finish, marked `"errored": true`.
        mv plan.out plan-destroy.out
        outputs=(terraform.tfstate plan-error.txt plan-destroy.json)
        ;;
    skip-destroy)
        tf apply -auto-approve
        # Add OpenTofu's "skip_destroy": true to terraform_data.retained, laid out as
        # Terraform lays out a state (json.MarshalIndent(state, "", "  ") + "\n").
        python3 - terraform.tfstate <<'EOF'
import json, sys

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    raw = f.read()

def go_indent(value):
    text = json.dumps(value, indent=2, ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text + "\n"

state = json.loads(raw)
if go_indent(state) != raw:
    sys.exit("regen: skip-destroy: cannot reproduce Terraform's layout of the state")
(resource,) = [r for r in state["resources"]
               if "module" not in r and r["mode"] == "managed"
               and r["type"] == "terraform_data" and r["name"] == "retained"]
(instance,) = resource["instances"]
instance["skip_destroy"] = True   # last key, after dependencies/create_before_destroy
with open(path, "w", encoding="utf-8") as f:
    f.write(go_indent(state))
EOF
        tf plan -destroy -out=plan.out
        ;;
    *)
        echo "regen: $case: no steps for this case in $0" >&2; exit 1
        ;;
    esac

    if [ -f plan.out ]; then show_json plan.out plan.json; fi
    if [ -f plan-destroy.out ]; then show_json plan-destroy.out plan-destroy.json; fi
    # Nothing of this machine in the outputs.
    for f in "${outputs[@]}"; do
        if grep -qF -e "$work" -e "$ROOT" "$f"; then
            echo "regen: $case: $f holds a local path" >&2; exit 1
        fi
    done

    (cd "$dir" && rm -f terraform.tfstate plan.json plan-destroy.json plan-error.txt)
    for f in "${outputs[@]}"; do
        cp "$f" "$dir/$f"
        echo "testdata/audit/$case/$f"
    done
    cd "$ROOT"
    rm -rf "$work"
done
