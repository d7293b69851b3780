//! Which HCL number literals are usable instance keys. HCL reads a literal
//! as an exact decimal and Terraform converts a key to Go's `int`, so any
//! spelling of a whole number in range works (`1e3`, `007`, `1.0`) and
//! anything else is rejected, with no rounding on the way.

/// Why a number literal is not an instance key: the rest of a sentence that names the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(super) enum NumberError {
    #[error("is not a valid number")]
    Invalid,
    #[error("is not a whole number")]
    NotWhole,
    #[error("is too large; the largest allowed is {}", i64::MAX)]
    TooLarge,
}

/// The integer an HCL number literal denotes, if it is a whole number that
/// fits Go's `int`, which is what Terraform converts instance keys to. HCL
/// reads literals as decimal floating point, so `1e3`, `007` and `1.0` are
/// all valid integer keys.
pub(super) fn whole_number(text: &str) -> Result<i64, NumberError> {
    let invalid = || NumberError::Invalid;
    let not_whole = || NumberError::NotWhole;
    let too_large = || NumberError::TooLarge;

    let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let (exp_negative, exp_digits) = match exponent.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, exponent.strip_prefix('+').unwrap_or(exponent)),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int_part)
        || !all_digits(frac_part)
        || !all_digits(exp_digits)
        || exp_digits.is_empty()
    {
        return Err(invalid());
    }

    // The value is `significand × 10^scale`, where the significand has no
    // leading or trailing zeros.
    let digits = format!("{int_part}{frac_part}");
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Ok(0);
    }
    let significand = digits.trim_end_matches('0');
    // An exponent beyond i64 leaves a non-zero significand either far too
    // large or far too small to be an integer key.
    let Ok(magnitude) = exp_digits.parse::<i64>() else {
        return Err(if exp_negative {
            not_whole()
        } else {
            too_large()
        });
    };
    let exponent = if exp_negative {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    };
    let trailing_zeros = digits.len() - significand.len();
    let scale = exponent + trailing_zeros as i128 - frac_part.len() as i128;
    // The significand ends in a non-zero digit, so a negative scale always
    // leaves a fraction.
    if scale < 0 {
        return Err(not_whole());
    }
    // i64::MAX has 19 digits.
    if significand.len() as i128 + scale > 19 {
        return Err(too_large());
    }
    let zeros = usize::try_from(scale).expect("scale is between 0 and 19");
    format!("{significand}{}", "0".repeat(zeros))
        .parse()
        .map_err(|_| too_large())
}

#[cfg(test)]
mod tests {
    use super::whole_number;

    #[test]
    fn reads_whole_numbers_exactly() {
        let max = i64::MAX;
        let too_large = format!("is too large; the largest allowed is {max}");
        let cases: &[(&str, Result<i64, &str>)] = &[
            ("0", Ok(0)),
            ("000", Ok(0)),
            ("0.000e99999999999999999999999", Ok(0)),
            ("007", Ok(7)),
            ("1.0", Ok(1)),
            ("1.e2", Ok(100)),
            ("10e-1", Ok(1)),
            ("1000e-3", Ok(1)),
            ("1.50e1", Ok(15)),
            ("2E+1", Ok(20)),
            ("9223372036854775807", Ok(max)),
            ("92233720368547758070e-1", Ok(max)),
            ("0.9223372036854775807e19", Ok(max)),
            ("1.5", Err("is not a whole number")),
            ("100e-3", Err("is not a whole number")),
            ("15e-1", Err("is not a whole number")),
            ("1e-99999999999999999999", Err("is not a whole number")),
            ("9223372036854775808", Err(&too_large)),
            ("1e19", Err(&too_large)),
            ("1e99999999999999999999", Err(&too_large)),
            ("1..2", Err("is not a valid number")),
            ("1e", Err("is not a valid number")),
            ("1e+", Err("is not a valid number")),
            ("1e2e3", Err("is not a valid number")),
            ("1e2.5", Err("is not a valid number")),
        ];
        for (text, expected) in cases {
            let expected = expected.map_err(str::to_string);
            let found = whole_number(text).map_err(|error| error.to_string());
            assert_eq!(found, expected, "{text:?}");
        }
    }
}
