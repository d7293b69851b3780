//! Which state a command means when it names none: the backend `terraform init` recorded, and the
//! selected workspace, as Terraform finds them.
