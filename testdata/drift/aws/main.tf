# The drift proof's AWS stack: applied by real Terraform 1.15.5 with the real AWS provider 3.39.0
# against moto's server on loopback (tests/integration/drift_stack.rs, benches/drift.sh), with
# testdata/aws/moto.tf beside it. `scale` multiplies it: 51 instances at 1 (six types), 301 at 6.

variable "scale" {
  type    = number
  default = 1
}

resource "aws_vpc" "main" {
  cidr_block = "10.0.0.0/16"
  tags = {
    Name = "drift"
  }
}

resource "aws_subnet" "app" {
  count      = 4 * var.scale
  vpc_id     = aws_vpc.main.id
  cidr_block = cidrsubnet("10.0.0.0/16", 8, count.index)
}

resource "aws_security_group" "app" {
  count  = 10 * var.scale
  name   = "app-${count.index}"
  vpc_id = aws_vpc.main.id
  ingress {
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/8"]
  }
}

resource "aws_instance" "web" {
  count         = 10 * var.scale
  ami           = "ami-12c6146b"
  instance_type = "t2.micro"
  subnet_id     = aws_subnet.app[count.index % length(aws_subnet.app)].id
  tags = {
    Name = "web-${count.index}"
  }
}

resource "aws_s3_bucket" "data" {
  count  = 10 * var.scale
  bucket = "statectl-drift-${count.index}"
}

resource "aws_iam_user" "svc" {
  count = 10 * var.scale
  name  = "svc-${count.index}"
}

resource "aws_ebs_volume" "disk" {
  count             = 6 * var.scale
  availability_zone = "us-east-1a"
  size              = 8
}
