# The state `show`'s data source reads (run first by testdata/regen.sh).

output "region" {
  value = "eu-west-1"
}

output "zones" {
  value = ["a", "b"]
}
