# Exercises: what `statectl show` must print as `terraform state show` prints it (the oracle test
# compares every instance): strings holding JSON (`jsonencode(...)`), multi-line strings (heredocs,
# trimmed), keys that are not identifiers, maps and objects of objects, empty collections, nulls
# inside objects, empty strings, template introducers, sensitive values deep inside a value, and a
# data source of the built-in provider.

variable "secret" {
  type      = string
  default   = "s3cr3t-value"
  sensitive = true
}

resource "terraform_data" "json" {
  input = {
    policy = jsonencode({
      Version   = "2012-10-17"
      Statement = [{ Effect = "Allow", Action = ["s3:GetObject"], Resource = "*" }]
      Empty     = {}
      List      = []
      Nested    = { "odd key" = null, n = 1.5, inner = jsonencode({ a = 1 }) }
    })
    empty_object = "{}"
    empty_array  = "[]"
    not_json     = "{ not json"
    scalar_json  = "42"
  }
}

resource "terraform_data" "text" {
  input = {
    script     = <<-EOT
      #!/bin/sh
        echo "indented"

      echo 'after a blank line'   
    EOT
    one_line   = "plain"
    empty      = ""
    templates  = "$${not} %%{interpolated} $x %y"
    "odd key"  = "quoted"
    "1starts"  = "digit"
    with-dash  = "dash"
    trailing_newline = "last\n"
  }
}

resource "terraform_data" "shapes" {
  input = {
    map_of_objects = tomap({
      b = { name = "bee", tags = tomap({ z = "1", a = "2" }) }
      a = { name = "ay", tags = tomap({}) }
    })
    list_of_objects = [{ id = 1, label = null }, { id = 2, label = "two" }]
    set_of_numbers  = toset([3, 1, 2])
    nested_empty    = { list = [], map = {}, object = {} }
    nulls           = { kept = "here", gone = null }
    "quoted keys"   = { "a b" = 1, "c-d" = 2, "é" = 3 }
  }
  triggers_replace = ["x", null, true]
}

resource "terraform_data" "sensitive" {
  input = {
    user     = "admin"
    password = var.secret
    nested   = { token = sensitive("t0ken"), open = "visible" }
    list     = ["open", sensitive("hidden")]
  }
}

data "terraform_remote_state" "self" {
  backend = "local"
  config = {
    path = "${path.module}/upstream/terraform.tfstate"
  }
  defaults = {
    fallback = "default value"
  }
}

resource "terraform_data" "from_data" {
  input = data.terraform_remote_state.self.outputs
}
