//! A JSON Schema integer (CONTRACT.md section 3): any JSON number with no
//! fractional part, so `10.0` and `1e1` are the integer 10 while `10.5` is
//! rejected. serde's own `i64` refuses every number written with a fraction or
//! an exponent. Values beyond `i64` saturate, and the range checks reject them.

use serde::{Deserializer, de};
use std::fmt;

struct Visitor;

impl de::Visitor<'_> for Visitor {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an integer")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
        Ok(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
        Ok(i64::try_from(v).unwrap_or(i64::MAX))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<i64, E> {
        if v.is_finite() && v.fract() == 0.0 {
            Ok(v as i64) // `as` saturates
        } else {
            Err(E::invalid_type(de::Unexpected::Float(v), &self))
        }
    }
}

pub fn required<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    d.deserialize_any(Visitor)
}

pub fn optional<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    struct Opt;
    impl<'de> de::Visitor<'de> for Opt {
        type Value = Option<i64>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an integer or null")
        }
        fn visit_none<E: de::Error>(self) -> Result<Option<i64>, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Option<i64>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<i64>, D::Error> {
            required(d).map(Some)
        }
    }
    d.deserialize_option(Opt)
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize)]
    struct Args {
        #[serde(deserialize_with = "super::required")]
        n: i64,
        #[serde(default, deserialize_with = "super::optional")]
        limit: Option<i64>,
    }

    fn parse(json: &str) -> Result<(i64, Option<i64>), String> {
        serde_json::from_str::<Args>(json)
            .map(|a| (a.n, a.limit))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn whole_numbers_are_integers_whatever_their_spelling() {
        assert_eq!(parse(r#"{"n":10}"#), Ok((10, None)));
        assert_eq!(parse(r#"{"n":10.0,"limit":3.0}"#), Ok((10, Some(3))));
        assert_eq!(parse(r#"{"n":1e1,"limit":null}"#), Ok((10, None)));
        assert_eq!(parse(r#"{"n":-0.0}"#), Ok((0, None)));
        assert_eq!(parse(r#"{"n":1e300}"#), Ok((i64::MAX, None)));
        assert_eq!(parse(r#"{"n":18446744073709551615}"#), Ok((i64::MAX, None)));
    }

    #[test]
    fn fractions_and_other_types_are_rejected() {
        for json in [
            r#"{"n":10.5}"#,
            r#"{"n":35.0000000001}"#,
            r#"{"n":"10"}"#,
            r#"{"n":true}"#,
            r#"{"n":null}"#,
            r#"{}"#,
            r#"{"n":1,"limit":2.5}"#,
            r#"{"n":1,"limit":"2"}"#,
        ] {
            assert!(parse(json).is_err(), "{json} was accepted");
        }
    }
}
