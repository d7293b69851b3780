//! Number equality by value, not spelling: `1`, `1.0`, `10e-1` and `0.1e1` are one number. States keep
//! numbers as written (serde_json's `arbitrary_precision`), and a 20-digit integer must not be rounded
//! through `f64` on the way, so numbers are compared as the state crate's exact decimals.

use statectl_state::json::Decimal;

/// Whether two JSON number literals denote the same value. Equal text is the fast path.
pub(super) fn same_number(left: &str, right: &str) -> bool {
    left == right
        || match (Decimal::parse(left), Decimal::parse(right)) {
            (Some(left), Some(right)) => left == right,
            // Not a JSON number, or an exponent past i64: only the same text is the same number.
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::same_number;

    #[test]
    fn spellings_of_one_value_are_equal() {
        for (left, right) in [
            ("1", "1.0"),
            ("1000", "1e3"),
            ("1000", "1E+3"),
            ("0.5", "5e-1"),
            ("12.5", "125e-1"),
            ("0", "-0"),
            ("0", "0.000e9"),
            ("-1.50", "-1.5"),
            ("100", "1.00e2"),
            ("0.001", "1e-3"),
            ("12345678901234567890123", "12345678901234567890123.000"),
        ] {
            assert!(same_number(left, right), "{left} == {right}");
            assert!(same_number(right, left), "{right} == {left}");
        }
    }

    #[test]
    fn different_values_differ_even_past_f64_precision() {
        for (left, right) in [
            ("1", "2"),
            ("1", "-1"),
            ("10", "1"),
            ("0.1", "0.01"),
            ("12.5", "1.25"),
            // Both round to the same f64.
            ("9007199254740993", "9007199254740992"),
            ("12345678901234567890123", "12345678901234567890124"),
            ("1e3", "1e4"),
        ] {
            assert!(!same_number(left, right), "{left} != {right}");
        }
    }

    #[test]
    fn a_huge_exponent_is_compared_as_text() {
        assert!(same_number(
            "1e99999999999999999999",
            "1e99999999999999999999"
        ));
        assert!(!same_number(
            "1e99999999999999999999",
            "1e99999999999999999998"
        ));
    }
}
