# An editor's lock file: hidden, so Terraform does not read it.
resource "aws_s3_bucket" "logs" {}
