# The AWS provider 3.39.0 pointed at moto's server on loopback (`endpoint`), with the checks a real
# account needs turned off: the one provider configuration of the AWS stacks that real Terraform
# applies in tests and benchmarks (testdata/drift/aws, testdata/plugin/aws, benches/plugin_bench.sh),
# copied beside each stack's main.tf.
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "3.39.0"
    }
  }
}

variable "endpoint" {
  type = string
}

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "testing"
  secret_key                  = "testing"
  skip_credentials_validation = true
  skip_metadata_api_check     = true
  skip_requesting_account_id  = true
  skip_get_ec2_platforms      = true
  s3_force_path_style         = true

  endpoints {
    ec2 = var.endpoint
    rds = var.endpoint
    s3  = var.endpoint
    sts = var.endpoint
    iam = var.endpoint
  }
}
