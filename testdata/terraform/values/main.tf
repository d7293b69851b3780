# Exercises: how values are spelled in state.
# - integers beyond 2^53 (9007199254740993) and beyond 2^64 (30 digits) are
#   written exactly, as JSON numbers: a parser must not go through f64;
# - 1e300 is written out as a 301-digit integer; 0.1 stays 0.1;
# - non-ASCII text stays raw UTF-8; < > & U+2028 are escaped (\u003c \u003e
#   \u0026 \u2028); control characters are escaped (\b \f \u0001), DEL is raw;
# - every cty type: string, number, bool, null, list, set, map, tuple, object.

variable "big" {
  type    = number
  default = 9007199254740993
}

resource "terraform_data" "numbers" {
  input = {
    above_2_53   = var.big
    negative     = -9007199254740993
    above_2_64   = 123456789012345678901234567890
    as_string    = "9007199254740993"
    max_u64      = 18446744073709551615
    fraction     = 0.1
    negative_exp = 1.5e-7
    huge         = 1e300
    zero         = 0
  }
}

resource "terraform_data" "text" {
  input = {
    accents = "Ünïcödé façade, naïve café"
    cjk     = "日本語のテキスト"
    emoji   = "rocket 🚀 snowman ☃"
    html    = "<script>alert('x') && 1</script>"
    seps    = "line\u2028para\u2029end"
    ctrl    = "bell\u0007 backspace\u0008 formfeed\u000c del\u007f"
    quotes  = "\"double\" and 'single' and \\backslash\\"
    ws      = "tab\there\nnewline\r\ncrlf"
    empty   = ""
  }
}

resource "terraform_data" "types" {
  input = {
    bool   = true
    null   = null
    list   = tolist(["a", "b"])
    set    = toset(["z", "y"])
    map    = tomap({ b = 2, a = 1 })
    tuple  = ["mixed", 1, false]
    object = { nested = { deeper = [1, 2, 3] } }
    empty  = []
  }
}

output "big" {
  value = var.big
}

output "huge" {
  value = terraform_data.numbers.output.above_2_64
}

output "html" {
  value = terraform_data.text.output.html
}

output "types" {
  value = terraform_data.types.output
}
