//! A state's number as Terraform prints it: cty reads the JSON number into a 512-bit float and writes
//! it back with `big.Float.Text('f', -1)`, so `1e3` shows as `1000`, `1.50` as `1.5` and `-0.0` as `-0`.
//! Below about 150 significant digits (every number a provider writes) that is the literal's own
//! decimal value with no exponent and no trailing zeros, which is what this computes from the text.

/// The longest expansion of an exponent made here; past it (`1e1000000000` would be a gigabyte of
/// zeros) the literal is shown as written.
const MAX_EXPANDED: usize = 4_096;

/// `literal` (a valid JSON number) in plain decimal, as cty writes it.
pub(super) fn cty_text(literal: &str) -> String {
    plain(literal).unwrap_or_else(|| literal.to_owned())
}

fn plain(literal: &str) -> Option<String> {
    let (negative, unsigned) = match literal.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, literal),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], unsigned[at + 1..].parse::<i64>().ok()?),
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = whole.chars().chain(fraction.chars()).collect();
    // The value is 0.DIGITS x 10^point.
    let point = i64::try_from(whole.len()).ok()? + exponent;
    let Some(first) = digits.find(|digit| digit != '0') else {
        return Some(if negative { "-0" } else { "0" }.to_owned());
    };
    let significant = digits[first..].trim_end_matches('0');
    let point = point - i64::try_from(first).ok()?;
    let length = i64::try_from(significant.len()).ok()?;
    if point.unsigned_abs() > MAX_EXPANDED as u64 {
        return None;
    }
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', usize::try_from(-point).ok()?));
        out.push_str(significant);
    } else if point >= length {
        out.push_str(significant);
        out.extend(std::iter::repeat_n(
            '0',
            usize::try_from(point - length).ok()?,
        ));
    } else {
        let split = usize::try_from(point).ok()?;
        out.push_str(&significant[..split]);
        out.push('.');
        out.push_str(&significant[split..]);
    }
    Some(out)
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
