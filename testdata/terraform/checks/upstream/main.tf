# Applied first by testdata/regen.sh; its state (upstream/terraform.tfstate)
# is what the terraform_remote_state data sources of ../main.tf read.
output "region" {
  value = "eu-west-1"
}

output "zones" {
  value = ["a", "b"]
}
