# Exercises: sensitive values. The variable value comes from terraform.tfvars
# (loaded automatically). Terraform stores sensitive values in clear text in
# state and records where they are in "sensitive_attributes" (paths) and
# "sensitive": true (outputs).

variable "db_password" {
  type      = string
  sensitive = true
}

# The whole input is sensitive: path [input].
resource "terraform_data" "password" {
  input = var.db_password
}

# Only one object attribute and one list element are sensitive.
resource "terraform_data" "connection" {
  input = {
    user     = "admin"
    password = var.db_password
    hosts    = ["db1", sensitive("db2-secret-host")]
  }
}

# Not sensitive at all: sensitive_attributes stays [].
resource "terraform_data" "public" {
  input = "nothing to hide"
}

output "password" {
  value     = var.db_password
  sensitive = true
}

output "dsn" {
  value     = "postgres://admin:${var.db_password}@db1/app"
  sensitive = true
}

output "user" {
  value = terraform_data.connection.output.user
}
