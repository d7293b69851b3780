# Exercises: count and for_each instance keys.
# - count = 12: integer index keys, sorted numerically (0, 1, 2, ..., 10, 11), not as text.
# - count = 1: index key 0 is still written.
# - count = 0: the resource gets no entry in state at all.
# - for_each over a map whose string keys need escaping: non-ASCII, a double
#   quote, a backslash, <>& (Go writes \u003c \u003e \u0026), tab and newline.
# - for_each over a set of strings, and a resource without count/for_each (no index_key).

resource "terraform_data" "counted" {
  count = 12
  input = count.index
}

resource "terraform_data" "one" {
  count = 1
  input = "only"
}

resource "terraform_data" "none" {
  count = 0
}

resource "terraform_data" "keyed" {
  for_each = {
    "plain"       = "ascii"
    "naïve ☃ 日本" = "non-ASCII key"
    "say \"hi\""  = "double quote"
    "C:\\temp"    = "backslash"
    "<a>&b"       = "HTML-special characters"
    "tab\there"   = "tab"
    "two\nlines"  = "newline"
  }
  input = each.value
}

resource "terraform_data" "set" {
  for_each = toset(["b", "a", "c"])
  input    = each.key
}

resource "terraform_data" "single" {
  input = length(terraform_data.counted)
}
