# Exercises: lifecycle data in state. testdata/regen.sh applies this three times:
#   1. apply (generation = 1): everything is created;
#   2. apply -var generation=2: terraform_data.cbd is replaced create-before-destroy,
#      the provisioner fails on the new object, so the apply fails (expected) and
#      leaves the new object "tainted" plus the old one as a "deposed" object;
#   3. terraform taint 'terraform_data.workers[1]': tainted by hand.
# Also: "create_before_destroy": true, and "dependencies" (implicit and depends_on).

variable "generation" {
  type    = number
  default = 1
}

resource "terraform_data" "cbd" {
  triggers_replace = var.generation
  input            = "generation ${var.generation}"

  lifecycle {
    create_before_destroy = true
  }

  # Fails only when creating generation 2 (see step 2 above).
  provisioner "local-exec" {
    command = self.triggers_replace == 2 ? "exit 1" : "true"
  }
}

# Implicit dependency on terraform_data.cbd through its output.
resource "terraform_data" "uses_cbd" {
  input = terraform_data.cbd.output
}

# Explicit depends_on; instance [1] is tainted by `terraform taint`.
resource "terraform_data" "workers" {
  count      = 2
  input      = "worker ${count.index}"
  depends_on = [terraform_data.uses_cbd]
}
