# Exercises: a state Terraform 1.15.5 wrote last whose providers come from registry.opentofu.org
# (people move between Terraform and OpenTofu). testdata/regen.sh applies this, then moves every
# provider address to registry.opentofu.org, gives some instances a `private` (as SDK providers
# write), and lets Terraform write the file once more (`terraform taint 'terraform_data.workers[1]'`),
# so the bytes are Terraform's own: `identity_schema_version` before `private`, `dependencies` and
# `create_before_destroy`, where OpenTofu would put it last.

resource "terraform_data" "base" {
  input = "base"
}

# Implicit dependency on terraform_data.base, and create_before_destroy.
resource "terraform_data" "cbd" {
  input = terraform_data.base.output

  lifecycle {
    create_before_destroy = true
  }
}

resource "terraform_data" "workers" {
  count      = 3
  input      = "worker ${count.index}"
  depends_on = [terraform_data.cbd]
}

resource "terraform_data" "keyed" {
  for_each = toset(["a", "b"])
  input    = each.key
}

module "child" {
  source = "./child"
}
