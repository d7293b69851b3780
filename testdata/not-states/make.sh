#!/usr/bin/env bash
# Regenerates the files in testdata/not-states/ that real tools make: age, gpg, gzip, iconv, and
# Terraform 1.15.5 (scripts/install-terraform.sh). The SOPS file and the empty ones are hand-made and
# kept as they are; the OpenTofu envelope is copied from the corpus.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
terraform="${STATECTL_TERRAFORM:-$("$root/scripts/install-terraform.sh" | tail -n1)}"
plain="$root/testdata/states/empty.tfstate"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# age: a throwaway key; nobody needs to decrypt these.
age-keygen -o "$work/key.txt" 2>/dev/null
recipient="$(age-keygen -y "$work/key.txt")"
age -r "$recipient" -o "$here/age-binary.tfstate" "$plain"
age -a -r "$recipient" -o "$here/age-armour.tfstate" "$plain"

# PGP: symmetric, with a throwaway passphrase.
mkdir -m 700 "$work/gnupg"
GNUPGHOME="$work/gnupg" gpg --quiet --batch --yes --pinentry-mode loopback --passphrase not-a-secret \
    --symmetric --armor -o "$here/pgp-armour.tfstate" "$plain"

gzip -9 -n -c "$plain" > "$here/gzip.tfstate"
iconv -f UTF-8 -t UTF-16 "$plain" > "$here/utf16-bom.tfstate"
iconv -f UTF-8 -t UTF-16LE "$plain" > "$here/utf16le.tfstate"

# Terraform: a saved plan, its JSON, `show -json` of a state, and the backend cache of `init`.
export TF_CLI_CONFIG_FILE="$work/empty.tfrc"
: > "$TF_CLI_CONFIG_FILE"
mkdir "$work/plan" "$work/backend"
cat > "$work/plan/main.tf" <<'TF'
resource "terraform_data" "example" {
  input = "not-a-state"
}
TF
(cd "$work/plan" && "$terraform" init -input=false >/dev/null &&
    "$terraform" plan -input=false -out=plan.tfplan >/dev/null &&
    "$terraform" show -json plan.tfplan > plan.json &&
    "$terraform" apply -input=false -auto-approve >/dev/null &&
    "$terraform" show -json > show.json)
cp "$work/plan/plan.tfplan" "$here/plan.tfplan"
cp "$work/plan/plan.json" "$here/plan.json"
cp "$work/plan/show.json" "$here/show.json"
cat > "$work/backend/main.tf" <<'TF'
terraform {
  backend "local" {
    path = "states/prod.tfstate"
  }
}
TF
(cd "$work/backend" && "$terraform" init -input=false >/dev/null)
cp "$work/backend/.terraform/terraform.tfstate" "$here/backend-cache.tfstate"

cp "$root/../shared/corpus/opentofu/internal__command__testdata__init-encryption-with-state__terraform.tfstate" \
    "$here/opentofu-encrypted.tfstate" 2>/dev/null || true
