# A module, so module resources carry the moved provider address too.
resource "terraform_data" "row" {
  count = 2
  input = count.index
}
