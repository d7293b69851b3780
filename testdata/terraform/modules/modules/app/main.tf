# Child module: a counted resource, plus a grandchild module called with count.
variable "name" {
  type = string
}

variable "replicas" {
  type = number
}

resource "terraform_data" "server" {
  count = var.replicas
  input = "${var.name}-${count.index}"
}

module "db" {
  source = "../db"
  count  = 2
  rows   = ["a", "b"]
}

output "ids" {
  value = terraform_data.server[*].id
}
