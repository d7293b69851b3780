resource "aws_db_instance" "replica" {
  identifier          = "app-replica"
  replicate_source_db = "app"
  instance_class      = "db.t4g.micro"

  lifecycle {
    create_before_destroy = true
  }
}
