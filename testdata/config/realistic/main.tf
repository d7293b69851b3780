terraform {
  required_version = ">= 1.7"
}

variable "instance_type" {
  type    = string
  default = "t3.micro"
}

resource "aws_s3_bucket" "logs" {
  bucket = "example-logs"

  lifecycle {
    prevent_destroy = true
  }
}

resource "aws_instance" "web" {
  count         = 2
  ami           = "ami-0123456789abcdef0"
  instance_type = var.instance_type

  lifecycle {
    create_before_destroy = true
    ignore_changes        = [tags]
  }
}

data "aws_caller_identity" "current" {}

module "db" {
  source = "./modules/db"
  count  = 1
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 5.0"
}

module "dns" {
  source = "git::https://example.com/dns.git?ref=v1.2.0"
}

removed {
  from = aws_instance.legacy

  lifecycle {
    destroy = false
  }
}

removed {
  from = module.old_cache
}
