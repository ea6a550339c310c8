//! What each tool accepts: its input schema as CONTRACT.md states it, the
//! argument type rmcp decodes, and the range check the tool repeats itself.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::json_int;
use crate::backends::ToolError;

/// Input schemas copied verbatim from CONTRACT.md, so tools/list is the same on
/// every server (rmcp would otherwise derive them from the Rust types).
pub(super) fn schema(json: &str) -> Arc<JsonObject> {
    Arc::new(serde_json::from_str(json).expect("contract schemas are valid JSON objects"))
}

pub(super) const ECHO_SCHEMA: &str = r#"{"type":"object","properties":{"message":{"type":"string"},"pad_to_bytes":{"type":"integer","minimum":0,"maximum":1048576}},"required":["message"]}"#;
pub(super) const FIBONACCI_SCHEMA: &str = r#"{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":35}},"required":["n"]}"#;
pub(super) const VALIDATE_SCHEMA: &str =
    r#"{"type":"object","properties":{"document":{"type":"object"}},"required":["document"]}"#;
pub(super) const TRANSFORM_SCHEMA: &str = r#"{"type":"object","properties":{"size":{"type":"integer","minimum":1,"maximum":100000}},"required":["size"]}"#;
pub(super) const SLEEP_SCHEMA: &str = r#"{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":10000}},"required":["ms"]}"#;
pub(super) const FETCH_SCHEMA: &str = r#"{"type":"object","properties":{"delay_ms":{"type":"integer","minimum":0,"maximum":10000}},"required":["delay_ms"]}"#;
pub(super) const SEARCH_SCHEMA: &str = r#"{"type":"object","properties":{"query":{"type":"string","pattern":"^[a-z]{1,32}$"},"limit":{"type":"integer","minimum":1,"maximum":50,"default":10}},"required":["query"]}"#;
pub(super) const CART_SCHEMA: &str = r#"{"type":"object","properties":{"user_id":{"type":"integer","minimum":1,"maximum":1000}},"required":["user_id"]}"#;
pub(super) const CHECKOUT_SCHEMA: &str = r#"{"type":"object","properties":{"user_id":{"type":"integer","minimum":1,"maximum":1000},"items":{"type":"array","minItems":1,"maxItems":10,"items":{"type":"object","properties":{"product_id":{"type":"integer","minimum":1,"maximum":100000},"quantity":{"type":"integer","minimum":1,"maximum":10}},"required":["product_id","quantity"]}}},"required":["user_id","items"]}"#;
pub(super) const GET_USER_SCHEMA: &str = r#"{"type":"object","properties":{"id":{"type":"integer","minimum":1,"maximum":100000}},"required":["id"]}"#;

#[derive(Deserialize)]
pub struct EchoArgs {
    pub(super) message: String,
    #[serde(default, deserialize_with = "json_int::optional")]
    pub(super) pad_to_bytes: Option<i64>,
}
#[derive(Deserialize)]
pub struct FibonacciArgs {
    #[serde(deserialize_with = "json_int::required")]
    pub(super) n: i64,
}
#[derive(Deserialize)]
pub struct ValidateArgs {
    pub(super) document: Value,
}
#[derive(Deserialize)]
pub struct TransformArgs {
    #[serde(deserialize_with = "json_int::required")]
    pub(super) size: i64,
}
#[derive(Deserialize)]
pub struct SleepArgs {
    #[serde(deserialize_with = "json_int::required")]
    pub(super) ms: i64,
}
#[derive(Deserialize)]
pub struct FetchArgs {
    #[serde(deserialize_with = "json_int::required")]
    pub(super) delay_ms: i64,
}
#[derive(Deserialize)]
pub struct SearchArgs {
    pub(super) query: String,
    #[serde(default, deserialize_with = "json_int::optional")]
    pub(super) limit: Option<i64>,
}
#[derive(Deserialize)]
pub struct UserIdArgs {
    #[serde(deserialize_with = "json_int::required")]
    pub(super) user_id: i64,
}
#[derive(Deserialize, Serialize)]
pub struct LineItem {
    #[serde(deserialize_with = "json_int::required")]
    pub(super) product_id: i64,
    #[serde(deserialize_with = "json_int::required")]
    pub(super) quantity: i64,
}
#[derive(Deserialize)]
pub struct CheckoutArgs {
    #[serde(deserialize_with = "json_int::required")]
    pub(super) user_id: i64,
    pub(super) items: Vec<LineItem>,
}
#[derive(Deserialize)]
pub struct GetUserArgs {
    #[serde(deserialize_with = "json_int::required")]
    pub(super) id: i64,
}

/// Re-checks ranges in our own code even though the schema states them: the
/// contract must hold for a caller that ignores the schema.
pub(super) fn in_range(name: &str, value: i64, lo: i64, hi: i64) -> Result<i64, ToolError> {
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(ToolError::InvalidArgument(format!(
            "{name} must be an integer in {lo}..{hi}"
        )))
    }
}
