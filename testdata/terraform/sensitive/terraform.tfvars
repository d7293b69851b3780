# Loaded automatically by terraform apply.
db_password = "hunter2-s3cr3t"
