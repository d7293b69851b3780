# A small AWS stack for the plugin reader's end-to-end test: applied by real Terraform 1.15.5 with the
# real AWS provider 3.39.0 against moto's server on loopback (tests/integration/plugin_stack.rs), with
# testdata/aws/moto.tf beside it.

resource "aws_instance" "web" {
  ami           = "ami-12c6146b"
  instance_type = "t2.micro"
  tags = {
    Name = "web"
  }
}

resource "aws_db_instance" "orders" {
  identifier          = "orders"
  engine              = "postgres"
  instance_class      = "db.t3.micro"
  allocated_storage   = 20
  username            = "orders"
  password            = "s3cret-orders-pw"
  skip_final_snapshot = true
}

resource "aws_s3_bucket" "logs" {
  bucket = "statectl-logs"
}
