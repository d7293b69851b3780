# The working directory of README.md's tour: a root module whose state Terraform 1.15.5 wrote
# (testdata/tour/regen.sh applies this, then taints terraform_data.app[1] as a timed-out create
# would leave it). Only the built-in terraform_data resource, so nothing is downloaded.

resource "terraform_data" "app" {
  count = 2
  input = "app-${count.index}"
}

resource "terraform_data" "db" {
  input = "orders"

  lifecycle {
    prevent_destroy = true
  }
}
