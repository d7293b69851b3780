# Override files patch blocks declared in other files: statectl skips them.
resource "aws_s3_bucket" "logs" {
  lifecycle {
    prevent_destroy = false
  }
}
