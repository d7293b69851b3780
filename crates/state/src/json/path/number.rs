//! Exact decimal numbers for filter comparisons. JSON numbers in a state may be wider than an f64
//! (`123456789012345678901234567890`, `9007199254740993`), and RFC 9535 compares numbers by value, so
//! both sides are read as decimals, never rounded.

use std::cmp::Ordering;

/// `0.digits × 10^exponent`, negated when `negative`; zero has no digits (and no sign: -0 == 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decimal {
    negative: bool,
    /// Without leading or trailing zeros.
    digits: Vec<u8>,
    exponent: i64,
}

impl Decimal {
    /// Reads JSON number text (`-12.5e3`). `None` when it is not one.
    pub(crate) fn parse(text: &str) -> Option<Decimal> {
        let bytes = text.as_bytes();
        let (negative, rest) = match bytes.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, bytes),
        };
        let mantissa_end = rest
            .iter()
            .position(|byte| matches!(byte, b'e' | b'E'))
            .unwrap_or(rest.len());
        let (mantissa, exponent_text) = rest.split_at(mantissa_end);
        let (whole, fraction) = match mantissa.iter().position(|byte| *byte == b'.') {
            Some(dot) => (&mantissa[..dot], &mantissa[dot + 1..]),
            None => (mantissa, &mantissa[..0]),
        };
        if whole.is_empty() || !whole.iter().chain(fraction).all(u8::is_ascii_digit) {
            return None;
        }
        let exponent = match exponent_text.split_first() {
            None => 0,
            Some((_, written)) => parse_exponent(written)?,
        };
        let mut digits: Vec<u8> = whole.iter().chain(fraction).copied().collect();
        // The point sits after `whole`: 12.5 is 0.125 × 10^2.
        let mut point = i64::try_from(whole.len()).unwrap_or(i64::MAX);
        let leading = digits.iter().take_while(|digit| **digit == b'0').count();
        digits.drain(..leading);
        point = point.saturating_sub(i64::try_from(leading).unwrap_or(i64::MAX));
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        if digits.is_empty() {
            return Some(Decimal::zero());
        }
        Some(Decimal {
            negative,
            digits,
            exponent: point.saturating_add(exponent),
        })
    }

    /// A count (`length()`, `count()`).
    pub(crate) fn from_count(count: usize) -> Decimal {
        Decimal::parse(&count.to_string()).unwrap_or_else(Decimal::zero)
    }

    /// A literal the expression parser read as a float. Rust prints the shortest text that reads back
    /// as the same f64, which is the literal as written for any literal an f64 holds exactly.
    pub(crate) fn from_f64(value: f64) -> Decimal {
        if value.is_finite() {
            Decimal::parse(&format!("{value:e}")).unwrap_or_else(Decimal::zero)
        } else {
            // `1e400` overflowed when it was parsed: beyond every finite number.
            Decimal {
                negative: value < 0.0,
                digits: vec![b'1'],
                exponent: i64::MAX,
            }
        }
    }

    fn zero() -> Decimal {
        Decimal {
            negative: false,
            digits: Vec::new(),
            exponent: 0,
        }
    }

    fn magnitude_cmp(&self, other: &Decimal) -> Ordering {
        match (self.digits.is_empty(), other.digits.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            // Without leading zeros, a larger exponent is a larger magnitude; then the digits decide,
            // and (without trailing zeros) a digit string that is a prefix of the other is smaller.
            (false, false) => self
                .exponent
                .cmp(&other.exponent)
                .then_with(|| self.digits.cmp(&other.digits)),
        }
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        let sign = |number: &Decimal| match (number.digits.is_empty(), number.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        };
        match sign(self).cmp(&sign(other)) {
            Ordering::Equal if sign(self) < 0 => other.magnitude_cmp(self),
            Ordering::Equal => self.magnitude_cmp(other),
            unequal => unequal,
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// An exponent's digits with an optional sign; saturates (a number like `1e99999999999999999999` is
/// still ordered right against any number a state holds).
fn parse_exponent(written: &[u8]) -> Option<i64> {
    let (negative, digits) = match written.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, written),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let magnitude = digits.iter().fold(0i64, |value, digit| {
        value
            .saturating_mul(10)
            .saturating_add(i64::from(digit - b'0'))
    });
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(text: &str) -> Decimal {
        Decimal::parse(text).unwrap()
    }

    #[test]
    fn equal_values_written_differently_are_equal() {
        assert_eq!(number("1"), number("1.0"));
        assert_eq!(number("100"), number("1e2"));
        assert_eq!(number("1E+2"), number("100.000"));
        assert_eq!(number("-0"), number("0"));
        assert_eq!(number("0.0e5"), number("0"));
        assert_eq!(number("0.5"), number("5e-1"));
        assert_eq!(Decimal::from_f64(0.1), number("0.1"));
        assert_eq!(Decimal::from_f64(-2.5e-7), number("-0.00000025"));
        assert_eq!(Decimal::from_count(42), number("42"));
    }

    #[test]
    fn orders_by_value_beyond_f64() {
        assert!(number("9007199254740993") > number("9007199254740992"));
        assert!(number("123456789012345678901234567890") > number("1.2e29"));
        assert!(number("-2") < number("-1"));
        assert!(number("-1") < number("0"));
        assert!(number("0.09") < number("0.1"));
        assert!(number("10") > number("9.99"));
        assert!(number("1e99999999999999999999999") > number("1e400"));
        assert!(Decimal::from_f64(f64::INFINITY) > number("1e300"));
        assert!(Decimal::from_f64(f64::NEG_INFINITY) < number("-1e300"));
    }

    #[test]
    fn refuses_what_is_not_a_number() {
        for text in ["", "-", ".5", "1e", "1e+", "a", "1x"] {
            assert!(Decimal::parse(text).is_none(), "{text}");
        }
    }
}
