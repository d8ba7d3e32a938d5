//! Money on analytics events and goals: a decimal amount (never a float) and an ISO 4217 code.
//! Amounts are kept as whole millionths of the unit (`micros`), so sums are exact in every store.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::input::Input;

/// The revenue an event brought (`POST /v1/analytics/events`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Revenue {
    /// A decimal as text (`"12.50"`), at most 12 digits before the point and 6 after; a JSON
    /// number is taken as its decimal text.
    pub amount: String,
    /// An ISO 4217 code (`EUR`), either case.
    #[schema(min_length = 3, max_length = 3)]
    pub currency: String,
}

/// A goal's revenue over the range, in its currency: the sum and the average of the amounts of
/// its conversions' events in that currency (amounts in other currencies are not converted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GoalRevenue {
    pub total: String,
    pub average: String,
    pub currency: String,
}

/// Active ISO 4217 codes.
const CODES: &str = "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN \
BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP \
GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT \
LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB \
PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS \
TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG \
XDR XOF XPD XPF XPT XSU XUA YER ZAR ZMW ZWG ZWL";

/// `raw` as an ISO 4217 code, upper case.
pub fn currency(raw: &str) -> Option<String> {
    let code = raw.trim().to_ascii_uppercase();
    (code.len() == 3 && CODES.split_whitespace().any(|c| c == code)).then_some(code)
}

/// The whole millionths of a decimal text (`"12.50"` is 12,500,000); `None` for anything else.
pub fn micros(amount: &str) -> Option<i64> {
    let (whole, fraction) = amount.split_once('.').unwrap_or((amount, ""));
    let digits = |s: &str, max: usize| s.len() <= max && s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole, 12) || !digits(fraction, 6) || amount.ends_with('.') {
        return None;
    }
    let scaled = format!("{fraction:0<6}");
    Some(whole.parse::<i64>().ok()? * 1_000_000 + scaled.parse::<i64>().ok()?)
}

/// Millionths as a decimal text: every significant digit, at least two after the point.
pub fn decimal(micros: i64) -> String {
    let sign = if micros < 0 { "-" } else { "" };
    let m = micros.unsigned_abs();
    let fraction = format!("{:06}", m % 1_000_000);
    let kept = fraction.trim_end_matches('0');
    let kept = if kept.len() < 2 { &fraction[..2] } else { kept };
    format!("{sign}{}.{kept}", m / 1_000_000)
}

/// An event's `revenue`: an object of `amount` and `currency`, each checked (`revenue.amount`,
/// `revenue.currency`).
pub fn read(input: &mut Input, field: &str) -> Option<Revenue> {
    let object = match input.raw(field)? {
        Value::Object(o) => o.clone(),
        _ => {
            input.error(
                field,
                "must be an object: {\"amount\": \"12.50\", \"currency\": \"EUR\"}",
            );
            return None;
        }
    };
    let amount = match object.get("amount") {
        Some(Value::String(s)) => Some(s.trim().to_owned()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
    .filter(|a| micros(a).is_some());
    if amount.is_none() {
        input.error(
            &format!("{field}.amount"),
            "must be a decimal of at most 12 digits and 6 decimals, as text (\"12.50\")",
        );
    }
    let code = object
        .get("currency")
        .and_then(Value::as_str)
        .and_then(currency);
    if code.is_none() {
        input.error(
            &format!("{field}.currency"),
            "must be an ISO 4217 code (EUR, USD, ...)",
        );
    }
    Some(Revenue {
        amount: amount?,
        currency: code?,
    })
}

/// A goal's optional `currency`.
pub fn read_currency(input: &mut Input, field: &str) -> Option<String> {
    let raw = input.raw(field)?;
    let code = raw.as_str().and_then(currency);
    if code.is_none() {
        input.error(field, "must be an ISO 4217 code (EUR, USD, ...)");
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_exact_millionths_and_print_back() {
        assert_eq!(micros("12.50"), Some(12_500_000));
        assert_eq!(micros("0.000001"), Some(1));
        assert_eq!(micros("30"), Some(30_000_000));
        for bad in [
            "",
            "1.",
            ".5",
            "-1",
            "1e3",
            "1.0000001",
            "1,5",
            "1234567890123",
        ] {
            assert_eq!(micros(bad), None, "{bad}");
        }
        assert_eq!(decimal(12_500_000), "12.50");
        assert_eq!(decimal(1), "0.000001");
        assert_eq!(decimal(14_166_667), "14.166667");
        assert_eq!(currency("eur").as_deref(), Some("EUR"));
        assert_eq!(currency("XYZ"), None);
    }
}
