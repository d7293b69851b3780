//! A state's number as Terraform prints it: cty reads the JSON number into a 512-bit float and writes
//! it back with `big.Float.Text('f', -1)`, so `1e3` shows as `1000`, `1.50` as `1.5` and `-0.0` as `-0`.
//! Below about 150 significant digits (every number a provider writes) that is the literal's own
//! decimal value with no exponent and no trailing zeros, which is what this computes from the text.

use crate::json::Decimal;

/// The furthest the decimal point is written from a literal's first significant digit; past it
/// (`1e1000000000` would be a gigabyte of zeros) the literal is shown as written.
const MAX_EXPANDED: u64 = 4_096;

/// `literal` (a valid JSON number) in plain decimal, as cty writes it.
pub(super) fn cty_text(literal: &str) -> String {
    Decimal::parse(literal)
        .and_then(|number| number.plain(MAX_EXPANDED))
        .unwrap_or_else(|| literal.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_numbers_as_cty_does() {
        for (literal, shown) in [
            ("0", "0"),
            ("-0", "-0"),
            ("0.000", "0"),
            ("2", "2"),
            ("1.50", "1.5"),
            ("1e3", "1000"),
            ("1E+3", "1000"),
            ("12.5e-3", "0.0125"),
            ("-0.1", "-0.1"),
            ("100", "100"),
            ("123.456e1", "1234.56"),
            ("18446744073709551616", "18446744073709551616"),
            ("0.5e1", "5"),
            ("1e-2", "0.01"),
        ] {
            assert_eq!(cty_text(literal), shown, "{literal}");
        }
        assert_eq!(cty_text("1e1000000000"), "1e1000000000");
    }
}
