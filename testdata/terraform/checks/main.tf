# Exercises: data sources and check_results.
# - data "terraform_remote_state" (mode "data") reading the local state of ./upstream;
# - a check block that passes, and one that fails (only a warning: apply succeeds),
#   with a data source scoped to the check block (it is saved in state too);
# - check_results of all kinds: check, var (validation), resource (postcondition),
#   output (precondition).

variable "env" {
  type    = string
  default = "prod"

  validation {
    condition     = contains(["dev", "prod"], var.env)
    error_message = "env must be dev or prod."
  }
}

data "terraform_remote_state" "upstream" {
  backend = "local"
  config = {
    path = "${path.module}/upstream/terraform.tfstate"
  }
}

resource "terraform_data" "server" {
  count = 2
  input = "${var.env}-${data.terraform_remote_state.upstream.outputs.region}-${count.index}"

  lifecycle {
    postcondition {
      condition     = startswith(self.output, var.env)
      error_message = "Server name must start with the environment."
    }
  }
}

check "region_is_eu" {
  assert {
    condition     = startswith(data.terraform_remote_state.upstream.outputs.region, "eu-")
    error_message = "Upstream region is not in the EU."
  }
}

check "three_zones" {
  data "terraform_remote_state" "scoped" {
    backend = "local"
    config = {
      path = "${path.module}/upstream/terraform.tfstate"
    }
  }

  assert {
    condition     = length(data.terraform_remote_state.scoped.outputs.zones) == 3
    error_message = "Expected 3 zones, got ${length(data.terraform_remote_state.scoped.outputs.zones)}."
  }
}

output "names" {
  value = terraform_data.server[*].output

  precondition {
    condition     = length(terraform_data.server) == 2
    error_message = "Expected two servers."
  }
}
