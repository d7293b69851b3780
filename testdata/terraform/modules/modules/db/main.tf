# Grandchild module: a for_each resource.
variable "rows" {
  type = list(string)
}

resource "terraform_data" "row" {
  for_each = toset(var.rows)
  input    = each.key
}
