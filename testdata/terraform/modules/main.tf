# Exercises: nested modules, with for_each and count on module calls.
# Addresses such as module.app["blue"].module.db[1].terraform_data.row["a"];
# module.shard has count = 11, so byte-wise sorting of resources puts
# module.shard[10] before module.shard[2].

resource "terraform_data" "root" {
  input = "root module"
}

# for_each on a module, which itself calls a module with count.
module "app" {
  source   = "./modules/app"
  for_each = { blue = 1, green = 2, "grün" = 0 }
  name     = each.key
  replicas = each.value
}

# A module call without count/for_each.
module "single" {
  source   = "./modules/app"
  name     = "single"
  replicas = 1
}

module "shard" {
  source = "./modules/db"
  count  = 11
  rows   = ["x"]
}

output "app_ids" {
  value = { for k, m in module.app : k => m.ids }
}
