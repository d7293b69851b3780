variable "engine_version" {
  type    = string
  default = "16.3"
}

resource "aws_db_instance" "main" {
  identifier     = "app"
  engine         = "postgres"
  engine_version = var.engine_version
  instance_class = "db.t4g.micro"

  lifecycle {
    prevent_destroy = true
    # OpenTofu: when the resource leaves the configuration, forget it instead of destroying it.
    destroy = false
  }
}

module "replica" {
  source = "../replica"
}
