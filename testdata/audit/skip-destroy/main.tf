# Exercises: a state carrying OpenTofu's persisted `lifecycle { destroy = false }`,
# i.e. `"skip_destroy": true` on an instance object. testdata/audit/regen.sh applies
# this, then adds "skip_destroy": true as the last key of terraform_data.retained's
# instance object in terraform.tfstate (Terraform's layout kept, serial unchanged),
# then `terraform plan -destroy`: Terraform ignores the unknown key, so both
# resources are planned as ["delete"].

resource "terraform_data" "retained" {
  input = "retained"
}

resource "terraform_data" "ordinary" {
  input = "ordinary"
}
