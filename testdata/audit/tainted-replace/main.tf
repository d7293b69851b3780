# Exercises: replacement of tainted objects. testdata/audit/regen.sh applies this,
# then `terraform taint`s both resources, then plans (a normal plan):
#   * terraform_data.plain -> ["delete", "create"] (destroy, then create);
#   * terraform_data.cbd   -> ["create", "delete"] (create_before_destroy).

resource "terraform_data" "plain" {
  input = "plain"
}

resource "terraform_data" "cbd" {
  input = "cbd"

  lifecycle {
    create_before_destroy = true
  }
}
