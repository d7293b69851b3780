# Exercises: a deposed object in the plan, as in testdata/terraform/lifecycle.
# testdata/audit/regen.sh runs, with this file only:
#   1. apply -var generation=1: terraform_data.cbd is created (generation 1);
#   2. apply -var provisioner_fails=true (generation 2): terraform_data.cbd is replaced
#      create-before-destroy, the provisioner fails on the new object, so the apply
#      fails (expected) and leaves the new object tainted and the old one deposed;
#   3. plan with the defaults (generation 2, the provisioner succeeds) -> plan.json:
#      the deposed object is deleted, the tainted one replaced;
#   4. plan -destroy, same state -> plan-destroy.json.
# terraform.tfstate is the state after step 2 (both plans are made against it).

variable "generation" {
  type    = number
  default = 2
}

variable "provisioner_fails" {
  type    = bool
  default = false
}

resource "terraform_data" "cbd" {
  triggers_replace = var.generation
  input            = "generation ${var.generation}"

  lifecycle {
    create_before_destroy = true
  }

  # Fails only in step 2 above.
  provisioner "local-exec" {
    command = var.provisioner_fails ? "exit 1" : "true"
  }
}

# Depends on terraform_data.cbd; untouched by the failed apply.
resource "terraform_data" "uses_cbd" {
  input = terraform_data.cbd.output
}
