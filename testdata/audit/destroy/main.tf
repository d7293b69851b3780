# Exercises: `terraform plan -destroy` of a whole configuration: root resources with
# count (3 instances), for_each over two string keys, a plain single instance, and a
# local module (./modules/app) called twice with for_each, each call with its own
# terraform_data instances. Every instance is planned as ["delete"].

resource "terraform_data" "counted" {
  count = 3
  input = "counted ${count.index}"
}

resource "terraform_data" "keyed" {
  for_each = toset(["alpha", "beta"])
  input    = "keyed ${each.key}"
}

resource "terraform_data" "plain" {
  input = [for d in terraform_data.counted : d.id]
}

module "app" {
  source   = "./modules/app"
  for_each = toset(["blue", "green"])
  name     = each.key
}
