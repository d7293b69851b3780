# Exercises: a `removed` block with `lifecycle { destroy = false }`.
# testdata/audit/regen.sh first applies step1.tf.txt (terraform_data.keep and
# terraform_data.legacy), then replaces it with this file, where the legacy
# resource block is gone and a removed block says to forget it, not destroy it:
#   * plan         -> plan.json:         terraform_data.legacy is planned as ["forget"];
#   * plan -destroy -> plan-destroy.json: same state, same configuration, destroy mode.

resource "terraform_data" "keep" {
  input = "keep"
}

removed {
  from = terraform_data.legacy

  lifecycle {
    destroy = false
  }
}
