# A small AWS stack for the plugin reader's end-to-end test: applied by real Terraform 1.15.5 with the
# real AWS provider 3.39.0 against moto's server on loopback (tests/integration/plugin_stack.rs).
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

resource "aws_instance" "web" {
  ami           = "ami-12c6146b"
  instance_type = "t2.micro"
  tags = {
    Name = "web"
  }
}

resource "aws_db_instance" "orders" {
  identifier          = "orders"
  engine              = "postgres"
  instance_class      = "db.t3.micro"
  allocated_storage   = 20
  username            = "orders"
  password            = "s3cret-orders-pw"
  skip_final_snapshot = true
}

resource "aws_s3_bucket" "logs" {
  bucket = "statectl-logs"
}
