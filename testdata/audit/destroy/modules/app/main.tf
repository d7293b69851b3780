# Called twice from ../../main.tf (module.app["blue"], module.app["green"]).

variable "name" {
  type = string
}

resource "terraform_data" "server" {
  input = "server ${var.name}"
}

resource "terraform_data" "replicas" {
  count = 2
  input = "${var.name} replica ${count.index}"
}

output "server_id" {
  value = terraform_data.server.id
}
