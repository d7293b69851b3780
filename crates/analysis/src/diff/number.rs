//! Number equality by value, not spelling: `1`, `1.0`, `10e-1` and `0.1e1` are one number. States keep
//! numbers as written (serde_json's `arbitrary_precision`), and a 20-digit integer must not be rounded
//! through `f64` on the way, so numbers are compared as decimal digits and an exponent.

/// Whether two JSON number literals denote the same value. Equal text is the fast path.
pub(super) fn same_number(left: &str, right: &str) -> bool {
    left == right
        || match (Decimal::parse(left), Decimal::parse(right)) {
            (Some(left), Some(right)) => left == right,
            // Not a JSON number, or an exponent past i64: only the same text is the same number.
            _ => false,
        }
}

/// A number as `(-1)^negative * digits * 10^exponent`, with no leading or trailing zeros in `digits`;
/// zero is the empty digit string, positive, exponent 0.
#[derive(Debug, PartialEq, Eq)]
struct Decimal<'a> {
    negative: bool,
    digits: DigitRun<'a>,
    exponent: i64,
}

/// The significant digits, which may straddle the decimal point (`12.5` is `1`, `2` then `5`).
#[derive(Debug)]
struct DigitRun<'a> {
    integer: &'a str,
    fraction: &'a str,
}

impl DigitRun<'_> {
    fn digits(&self) -> impl Iterator<Item = u8> + '_ {
        self.integer.bytes().chain(self.fraction.bytes())
    }
}

impl PartialEq for DigitRun<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.digits().eq(other.digits())
    }
}

impl Eq for DigitRun<'_> {}

impl<'a> Decimal<'a> {
    fn parse(text: &'a str) -> Option<Decimal<'a>> {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |part: &str| part.bytes().all(|byte| byte.is_ascii_digit());
        if integer.is_empty() || !all_digits(integer) || !all_digits(fraction) {
            return None;
        }
        let fraction_length = i64::try_from(fraction.len()).ok()?;
        let mut exponent = exponent.checked_sub(fraction_length)?;
        // Leading zeros do not count; they can only be in the integer part, or in the fraction when
        // the integer part is all zeros.
        let mut integer = integer.trim_start_matches('0');
        let mut fraction = fraction;
        if integer.is_empty() {
            fraction = fraction.trim_start_matches('0');
        }
        // Trailing zeros move into the exponent.
        let trimmed = fraction.trim_end_matches('0');
        exponent = exponent.checked_add(i64::try_from(fraction.len() - trimmed.len()).ok()?)?;
        fraction = trimmed;
        if fraction.is_empty() {
            let trimmed = integer.trim_end_matches('0');
            exponent = exponent.checked_add(i64::try_from(integer.len() - trimmed.len()).ok()?)?;
            integer = trimmed;
        }
        if integer.is_empty() && fraction.is_empty() {
            // -0, 0.000, 0e7: all zero.
            return Some(Decimal {
                negative: false,
                digits: DigitRun {
                    integer: "",
                    fraction: "",
                },
                exponent: 0,
            });
        }
        Some(Decimal {
            negative,
            digits: DigitRun { integer, fraction },
            exponent,
        })
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
