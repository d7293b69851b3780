# Applied by real Terraform 1.15.5 with the protocol-6 test provider (provider.py, Python's `tf`
# package) in tests/integration/plugin_tf.rs; its jobs stay "creating" until the test says otherwise.
terraform {
  required_providers {
    pyasync = {
      source  = "statectl.example/test/pyasync"
      version = "1.0.0"
    }
  }
}

# The provider copies `region` into its jobs: a refresh must configure it as Terraform does, with
# the variable's value from tfvars files, TF_VAR_region or -var.
variable "region" {
  type    = string
  default = "default-region"
}

provider "pyasync" {
  region = var.region
}

# Sensitive in the configuration only: the schema does not mark `name`, so the state's mark on it
# comes from here, and a refresh must keep it.
variable "job_name" {
  type      = string
  default   = "build"
  sensitive = true
}

resource "pyasync_job" "build" {
  name = var.job_name
}
