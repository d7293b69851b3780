# Exercises: `lifecycle { prevent_destroy = true }`. testdata/audit/regen.sh applies
# this, then `terraform plan -destroy` fails on purpose ("Instance cannot be
# destroyed") for terraform_data.protected: its stderr is plan-error.txt, and there
# is no plan.json. terraform_data.unprotected has no lifecycle block.

resource "terraform_data" "protected" {
  input = "protected"

  lifecycle {
    prevent_destroy = true
  }
}

resource "terraform_data" "unprotected" {
  input = "unprotected"
}
