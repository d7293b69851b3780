//! Exact decimal numbers read from JSON number text: the one reader behind comparing numbers by value
//! (JSONPath filters, `diff`) and writing them in plain decimal as Terraform does (`show`, the plugin
//! reader). JSON numbers in a state may be wider than an f64 (`123456789012345678901234567890`,
//! `9007199254740993`), so they are read as decimal digits and an exponent, never rounded.

use std::cmp::Ordering;

/// `0.digits × 10^exponent`, negated when `negative`. Zero has no digits and equals zero whatever its
/// sign (-0 == 0); the sign is kept only so that [`Decimal::plain`] can write `-0` as cty does.
#[derive(Debug, Clone)]
pub struct Decimal {
    negative: bool,
    /// ASCII digits without leading or trailing zeros.
    digits: String,
    exponent: i64,
}

impl Decimal {
    /// Reads JSON number text (`-12.5e3`; also `1.`). `None` when it is not one, or when its exponent
    /// does not fit an `i64` (such a number is equal only to its own text).
    #[must_use]
    pub fn parse(text: &str) -> Option<Decimal> {
        read(text, Overflow::Refuse)
    }

    /// [`Decimal::parse`], but an exponent past `i64` saturates, so that `1e99999999999999999999` is
    /// still ordered right against any number a state holds.
    pub(crate) fn parse_saturating(text: &str) -> Option<Decimal> {
        read(text, Overflow::Saturate)
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
                digits: "1".to_owned(),
                exponent: i64::MAX,
            }
        }
    }

    fn zero() -> Decimal {
        Decimal {
            negative: false,
            digits: String::new(),
            exponent: 0,
        }
    }

    /// Whether this is zero (`0`, `-0`, `0.000e9`).
    #[must_use]
    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// The number in plain decimal as Go's `big.Float.Text('f', -1)` writes it (and so cty and
    /// Terraform): no exponent, no leading zeros, no trailing fractional zeros; `-0` for a negative
    /// zero. `None` when the decimal point lies more than `max_point` places from the first significant
    /// digit (`1e1000000000` would be a gigabyte of zeros).
    #[must_use]
    pub fn plain(&self, max_point: u64) -> Option<String> {
        let mut out = String::from(if self.negative { "-" } else { "" });
        if self.is_zero() {
            out.push('0');
            return Some(out);
        }
        let point = self.exponent;
        if point.unsigned_abs() > max_point {
            return None;
        }
        let digits = self.digits.as_str();
        let length = i64::try_from(digits.len()).ok()?;
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', usize::try_from(-point).ok()?));
            out.push_str(digits);
        } else if point >= length {
            out.push_str(digits);
            out.extend(std::iter::repeat_n(
                '0',
                usize::try_from(point - length).ok()?,
            ));
        } else {
            let split = usize::try_from(point).ok()?;
            out.push_str(&digits[..split]);
            out.push('.');
            out.push_str(&digits[split..]);
        }
        Some(out)
    }

    fn magnitude_cmp(&self, other: &Decimal) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
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
        let sign = |number: &Decimal| match (number.is_zero(), number.negative) {
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

/// Equal by value: `1`, `1.0`, `10e-1` and `-0`/`0` pairs.
impl PartialEq for Decimal {
    fn eq(&self, other: &Decimal) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal {}

/// What an exponent past `i64` does.
#[derive(Clone, Copy)]
enum Overflow {
    /// The number is refused.
    Refuse,
    /// The exponent is held at `i64`'s bound.
    Saturate,
}

impl Overflow {
    fn add(self, left: i64, right: i64) -> Option<i64> {
        match self {
            Overflow::Refuse => left.checked_add(right),
            Overflow::Saturate => Some(left.saturating_add(right)),
        }
    }

    fn mul(self, left: i64, right: i64) -> Option<i64> {
        match self {
            Overflow::Refuse => left.checked_mul(right),
            Overflow::Saturate => Some(left.saturating_mul(right)),
        }
    }
}

fn read(text: &str, overflow: Overflow) -> Option<Decimal> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent_text) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], Some(&rest[at + 1..])),
        None => (rest, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|byte| byte.is_ascii_digit())
    {
        return None;
    }
    let exponent = match exponent_text {
        None => 0,
        Some(written) => parse_exponent(written, overflow)?,
    };
    let all = whole.chars().chain(fraction.chars());
    let leading = all.clone().take_while(|digit| *digit == '0').count();
    let mut digits: String = all.skip(leading).collect();
    digits.truncate(digits.trim_end_matches('0').len());
    if digits.is_empty() {
        return Some(Decimal {
            negative,
            ..Decimal::zero()
        });
    }
    // The point sits after `whole`, less the leading zeros: 12.5 is 0.125 × 10^2, 0.05 is 0.5 × 10^-1.
    let point = i64::try_from(whole.len()).ok()? - i64::try_from(leading).ok()?;
    Some(Decimal {
        negative,
        digits,
        exponent: overflow.add(point, exponent)?,
    })
}

/// An exponent's digits with an optional sign.
fn parse_exponent(written: &str, overflow: Overflow) -> Option<i64> {
    let (negative, digits) = match written.as_bytes().split_first() {
        Some((b'-', _)) => (true, &written[1..]),
        Some((b'+', _)) => (false, &written[1..]),
        _ => (false, written),
    };
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.bytes().try_fold(0i64, |value, digit| {
        overflow.add(overflow.mul(value, 10)?, i64::from(digit - b'0'))
    })?;
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(text: &str) -> Decimal {
        Decimal::parse_saturating(text).unwrap()
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

    #[test]
    fn an_exponent_past_i64_is_refused_unless_saturating() {
        for text in [
            "1e99999999999999999999",
            "0e99999999999999999999",
            "1e9223372036854775807",
        ] {
            assert!(Decimal::parse(text).is_none(), "{text}");
            assert!(Decimal::parse_saturating(text).is_some(), "{text}");
        }
        assert_eq!(Decimal::parse("12e-3"), Decimal::parse("0.012"));
    }

    #[test]
    fn writes_plain_decimals() {
        for (text, plain) in [
            ("0", "0"),
            ("-0", "-0"),
            ("0.000e9", "0"),
            ("1.50", "1.5"),
            ("007", "7"),
            ("1e3", "1000"),
            ("12.5e-3", "0.0125"),
            ("-0.0100", "-0.01"),
            ("123.456e1", "1234.56"),
            ("18446744073709551616", "18446744073709551616"),
        ] {
            assert_eq!(number(text).plain(64).as_deref(), Some(plain), "{text}");
        }
        // The point of 1e9 is ten places right of its digit; of 1e-11, ten places left.
        assert_eq!(number("1e9").plain(10).as_deref(), Some("1000000000"));
        assert_eq!(number("1e10").plain(10), None);
        assert_eq!(number("1e-11").plain(10).as_deref(), Some("0.00000000001"));
        assert_eq!(number("1e-12").plain(10), None);
    }
}
