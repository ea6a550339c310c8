//! The ten tools of CONTRACT.md section 4 as an rmcp tool router.

use std::sync::Arc;

use redis::AsyncCommands;
use rmcp::{
    ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, ContentBlock, JsonObject},
    tool, tool_handler, tool_router,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, value::RawValue};

use crate::{
    backends::{Backends, ToolError},
    compute::{MAX_ECHO_BYTES, canonical_json, fibonacci, pad_message, transform_data},
    validate::DocumentValidator,
};

/// Input schemas copied verbatim from CONTRACT.md, so tools/list is the same on
/// every server (rmcp would otherwise derive them from the Rust types).
fn schema(json: &str) -> Arc<JsonObject> {
    Arc::new(serde_json::from_str(json).expect("contract schemas are valid JSON objects"))
}

const ECHO_SCHEMA: &str = r#"{"type":"object","properties":{"message":{"type":"string"},"pad_to_bytes":{"type":"integer","minimum":0,"maximum":1048576}},"required":["message"]}"#;
const FIBONACCI_SCHEMA: &str = r#"{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":35}},"required":["n"]}"#;
const VALIDATE_SCHEMA: &str =
    r#"{"type":"object","properties":{"document":{"type":"object"}},"required":["document"]}"#;
const TRANSFORM_SCHEMA: &str = r#"{"type":"object","properties":{"size":{"type":"integer","minimum":1,"maximum":100000}},"required":["size"]}"#;
const SLEEP_SCHEMA: &str = r#"{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":10000}},"required":["ms"]}"#;
const FETCH_SCHEMA: &str = r#"{"type":"object","properties":{"delay_ms":{"type":"integer","minimum":0,"maximum":10000}},"required":["delay_ms"]}"#;
const SEARCH_SCHEMA: &str = r#"{"type":"object","properties":{"query":{"type":"string","pattern":"^[a-z]{1,32}$"},"limit":{"type":"integer","minimum":1,"maximum":50,"default":10}},"required":["query"]}"#;
const CART_SCHEMA: &str = r#"{"type":"object","properties":{"user_id":{"type":"integer","minimum":1,"maximum":1000}},"required":["user_id"]}"#;
const CHECKOUT_SCHEMA: &str = r#"{"type":"object","properties":{"user_id":{"type":"integer","minimum":1,"maximum":1000},"items":{"type":"array","minItems":1,"maxItems":10,"items":{"type":"object","properties":{"product_id":{"type":"integer","minimum":1,"maximum":100000},"quantity":{"type":"integer","minimum":1,"maximum":10}},"required":["product_id","quantity"]}}},"required":["user_id","items"]}"#;
const GET_USER_SCHEMA: &str = r#"{"type":"object","properties":{"id":{"type":"integer","minimum":1,"maximum":100000}},"required":["id"]}"#;

/// A JSON Schema integer (CONTRACT.md section 3): any JSON number with no
/// fractional part, so `10.0` and `1e1` are the integer 10 while `10.5` is
/// rejected. serde's own `i64` refuses every number written with a fraction or
/// an exponent. Values beyond `i64` saturate, and the range checks reject them.
mod json_int {
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
}

#[derive(Deserialize)]
pub struct EchoArgs {
    message: String,
    #[serde(default, deserialize_with = "json_int::optional")]
    pad_to_bytes: Option<i64>,
}
#[derive(Deserialize)]
pub struct FibonacciArgs {
    #[serde(deserialize_with = "json_int::required")]
    n: i64,
}
#[derive(Deserialize)]
pub struct ValidateArgs {
    document: Value,
}
#[derive(Deserialize)]
pub struct TransformArgs {
    #[serde(deserialize_with = "json_int::required")]
    size: i64,
}
#[derive(Deserialize)]
pub struct SleepArgs {
    #[serde(deserialize_with = "json_int::required")]
    ms: i64,
}
#[derive(Deserialize)]
pub struct FetchArgs {
    #[serde(deserialize_with = "json_int::required")]
    delay_ms: i64,
}
#[derive(Deserialize)]
pub struct SearchArgs {
    query: String,
    #[serde(default, deserialize_with = "json_int::optional")]
    limit: Option<i64>,
}
#[derive(Deserialize)]
pub struct UserIdArgs {
    #[serde(deserialize_with = "json_int::required")]
    user_id: i64,
}
#[derive(Deserialize, Serialize)]
pub struct LineItem {
    #[serde(deserialize_with = "json_int::required")]
    product_id: i64,
    #[serde(deserialize_with = "json_int::required")]
    quantity: i64,
}
#[derive(Deserialize)]
pub struct CheckoutArgs {
    #[serde(deserialize_with = "json_int::required")]
    user_id: i64,
    items: Vec<LineItem>,
}
#[derive(Deserialize)]
pub struct GetUserArgs {
    #[serde(deserialize_with = "json_int::required")]
    id: i64,
}

#[derive(Deserialize, Serialize)]
struct Product {
    id: i64,
    name: String,
    category: String,
    price_cents: i64,
    stock: i64,
}

#[derive(Serialize)]
struct Popular {
    product_id: i64,
    score: i64,
}

/// Shared by every session: the router, the compiled schema and the clients.
pub struct AppState {
    router: ToolRouter<PerflabServer>,
    pub validator: DocumentValidator,
    pub backends: Backends,
}

impl AppState {
    pub fn new(validator: DocumentValidator, backends: Backends) -> Self {
        Self {
            router: PerflabServer::tool_router(),
            validator,
            backends,
        }
    }
}

/// One per MCP session (rmcp's service factory); cloning is one Arc increment.
#[derive(Clone)]
pub struct PerflabServer {
    state: Arc<AppState>,
}

impl PerflabServer {
    pub fn new(state: Arc<AppState>) -> Self {
        Self { state }
    }
}

/// Re-checks ranges in our own code even though the schema states them: the
/// contract must hold for a caller that ignores the schema.
fn in_range(name: &str, value: i64, lo: i64, hi: i64) -> Result<i64, ToolError> {
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(ToolError::InvalidArgument(format!(
            "{name} must be an integer in {lo}..{hi}"
        )))
    }
}

fn text(s: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

fn finish(result: Result<String, ToolError>) -> CallToolResult {
    match result {
        Ok(s) => text(s),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
    }
}

fn decode<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, ToolError> {
    serde_json::from_slice(body)
        .map_err(|e| ToolError::Upstream(format!("fixture API answered malformed JSON: {e}")))
}

fn parse_id(s: &str, what: &str) -> Result<i64, ToolError> {
    s.parse()
        .map_err(|_| ToolError::Backend(format!("malformed {what} {s:?}")))
}

#[tool_router]
impl PerflabServer {
    #[tool(description = "Returns the message, padded to pad_to_bytes bytes.", input_schema = schema(ECHO_SCHEMA))]
    async fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> CallToolResult {
        finish((|| {
            if args.message.len() > MAX_ECHO_BYTES {
                return Err(ToolError::InvalidArgument(format!(
                    "message is longer than {MAX_ECHO_BYTES} bytes"
                )));
            }
            let pad = in_range(
                "pad_to_bytes",
                args.pad_to_bytes.unwrap_or(0),
                0,
                MAX_ECHO_BYTES as i64,
            )?;
            Ok(pad_message(args.message, pad as usize))
        })())
    }

    #[tool(description = "Computes the n-th Fibonacci number by naive recursion.", input_schema = schema(FIBONACCI_SCHEMA))]
    async fn fibonacci(&self, Parameters(args): Parameters<FibonacciArgs>) -> CallToolResult {
        finish(in_range("n", args.n, 0, 35).map(|n| {
            #[derive(Serialize)]
            struct Out {
                n: i64,
                value: i64,
            }
            canonical_json(&Out {
                n,
                value: fibonacci(n as u32),
            })
        }))
    }

    #[tool(description = "Validates a document against the perflab order schema.", input_schema = schema(VALIDATE_SCHEMA))]
    async fn validate_document(
        &self,
        Parameters(args): Parameters<ValidateArgs>,
    ) -> CallToolResult {
        finish(if args.document.is_object() {
            Ok(canonical_json(
                &self.state.validator.validate(&args.document),
            ))
        } else {
            Err(ToolError::InvalidArgument(
                "document must be an object".into(),
            ))
        })
    }

    #[tool(description = "Generates, sorts, groups and aggregates size records.", input_schema = schema(TRANSFORM_SCHEMA))]
    async fn transform_data(&self, Parameters(args): Parameters<TransformArgs>) -> CallToolResult {
        finish(
            in_range("size", args.size, 1, 100_000)
                .map(|size| canonical_json(&transform_data(size as usize))),
        )
    }

    #[tool(description = "Waits ms milliseconds, like a database call.", input_schema = schema(SLEEP_SCHEMA))]
    async fn sleep(&self, Parameters(args): Parameters<SleepArgs>) -> CallToolResult {
        let ms = match in_range("ms", args.ms, 0, 10_000) {
            Ok(ms) => ms,
            Err(e) => return finish(Err(e)),
        };
        tokio::time::sleep(std::time::Duration::from_millis(ms as u64)).await;
        text(format!(r#"{{"slept_ms":{ms}}}"#))
    }

    #[tool(description = "Fetches the fixture API's /delay endpoint.", input_schema = schema(FETCH_SCHEMA))]
    async fn fetch_upstream(&self, Parameters(args): Parameters<FetchArgs>) -> CallToolResult {
        finish(self.fetch_upstream_text(args).await)
    }

    #[tool(description = "Searches products and returns the most popular ones.", input_schema = schema(SEARCH_SCHEMA))]
    async fn search_products(&self, Parameters(args): Parameters<SearchArgs>) -> CallToolResult {
        finish(self.search_products_text(args).await)
    }

    #[tool(description = "Returns a user's cart, recommended product and recent orders.", input_schema = schema(CART_SCHEMA))]
    async fn get_user_cart(&self, Parameters(args): Parameters<UserIdArgs>) -> CallToolResult {
        finish(self.get_user_cart_text(args).await)
    }

    #[tool(description = "Prices items and records an order for a user.", input_schema = schema(CHECKOUT_SCHEMA))]
    async fn checkout(&self, Parameters(args): Parameters<CheckoutArgs>) -> CallToolResult {
        finish(self.checkout_text(args).await)
    }

    #[tool(description = "Looks up a user by primary key in Postgres.", input_schema = schema(GET_USER_SCHEMA))]
    async fn get_user(&self, Parameters(args): Parameters<GetUserArgs>) -> CallToolResult {
        finish(match in_range("id", args.id, 1, 100_000) {
            Ok(id) => self
                .state
                .backends
                .user(id as i32)
                .await
                .map(|u| canonical_json(&u)),
            Err(e) => Err(e),
        })
    }
}

#[tool_handler(router = self.state.router, name = "perflab-rust", version = "1.0.0")]
impl ServerHandler for PerflabServer {}

impl PerflabServer {
    async fn fetch_upstream_text(&self, args: FetchArgs) -> Result<String, ToolError> {
        let delay = in_range("delay_ms", args.delay_ms, 0, 10_000)?;
        let body = self
            .state
            .backends
            .api(reqwest::Method::GET, &format!("/delay?ms={delay}"), None)
            .await?;
        String::from_utf8(body)
            .map_err(|_| ToolError::Upstream("fixture API answered non-UTF-8".into()))
    }

    async fn search_products_text(&self, args: SearchArgs) -> Result<String, ToolError> {
        let query = args.query;
        if query.is_empty() || query.len() > 32 || !query.bytes().all(|b| b.is_ascii_lowercase()) {
            return Err(ToolError::InvalidArgument(
                "query must match ^[a-z]{1,32}$".into(),
            ));
        }
        let limit = in_range("limit", args.limit.unwrap_or(10), 1, 50)?;
        let mut redis = self.state.backends.redis().await?;
        // join! polls both futures from the start, so the two calls overlap.
        let path = format!("/products/search?q={query}&limit={limit}");
        let (found, top) = tokio::join!(
            self.state.backends.api(reqwest::Method::GET, &path, None),
            redis.zrevrange_withscores::<_, Vec<(String, f64)>>("products:popularity", 0, 4),
        );
        #[derive(Deserialize)]
        struct Found {
            total: i64,
            items: Vec<Product>,
        }
        let found: Found = decode(&found?)?;
        let popular = top?
            .into_iter()
            .map(|(member, score)| {
                Ok(Popular {
                    product_id: parse_id(&member, "popularity member")?,
                    score: score as i64,
                })
            })
            .collect::<Result<Vec<_>, ToolError>>()?;
        #[derive(Serialize)]
        struct Out {
            query: String,
            total: i64,
            items: Vec<Product>,
            popular: Vec<Popular>,
        }
        Ok(canonical_json(&Out {
            query,
            total: found.total,
            items: found.items,
            popular,
        }))
    }

    async fn get_user_cart_text(&self, args: UserIdArgs) -> Result<String, ToolError> {
        let user_id = in_range("user_id", args.user_id, 1, 1000)?;
        let redis = self.state.backends.redis().await?;
        let (mut cart_conn, mut history_conn) = (redis.clone(), redis);
        let recommended = 1 + (user_id * 7919) % 100_000;
        let path = format!("/products/{recommended}");
        let (cart, product, history) = tokio::join!(
            cart_conn.hgetall::<_, Vec<(String, String)>>(format!("user:{user_id}:cart")),
            self.state.backends.api(reqwest::Method::GET, &path, None),
            history_conn.lrange::<_, Vec<String>>(format!("user:{user_id}:history"), -5, -1),
        );
        let (cart, product, history) = (cart?, product?, history?);
        let mut items = cart
            .iter()
            .map(|(pid, qty)| {
                Ok(LineItem {
                    product_id: parse_id(pid, "cart product id")?,
                    quantity: parse_id(qty, "cart quantity")?,
                })
            })
            .collect::<Result<Vec<_>, ToolError>>()?;
        items.sort_by_key(|i| i.product_id);
        let recent_orders = history
            .into_iter()
            .map(|h| {
                RawValue::from_string(h)
                    .map_err(|_| ToolError::Backend("malformed history entry".into()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        #[derive(Serialize)]
        struct Out {
            user_id: i64,
            items: Vec<LineItem>,
            item_count: i64,
            recommended: Product,
            recent_orders: Vec<Box<RawValue>>,
        }
        let out = Out {
            user_id,
            item_count: items.iter().map(|i| i.quantity).sum(),
            items,
            recommended: decode(&product)?,
            recent_orders,
        };
        Ok(canonical_json(&out))
    }

    async fn checkout_text(&self, args: CheckoutArgs) -> Result<String, ToolError> {
        let user_id = in_range("user_id", args.user_id, 1, 1000)?;
        if !(1..=10).contains(&args.items.len()) {
            return Err(ToolError::InvalidArgument(
                "items must hold 1..10 entries".into(),
            ));
        }
        for item in &args.items {
            in_range("product_id", item.product_id, 1, 100_000)?;
            in_range("quantity", item.quantity, 1, 10)?;
        }
        let mut redis = self.state.backends.redis().await?;
        #[derive(Serialize)]
        struct Order<'a> {
            items: &'a [LineItem],
        }
        let order = canonical_json(&Order { items: &args.items });
        let history = format!("user:{user_id}:history");
        // One round trip: INCR, RPUSH, LTRIM and a ZINCRBY per item.
        let mut pipe = redis::pipe();
        pipe.incr("orders:count", 1)
            .rpush(&history, &order)
            .ignore()
            .ltrim(&history, -50, -1)
            .ignore();
        for item in &args.items {
            pipe.zincr("products:popularity", item.product_id, item.quantity)
                .ignore();
        }
        let (priced, recorded) = tokio::join!(
            self.state.backends.api(
                reqwest::Method::POST,
                "/cart/calculate",
                Some(order.clone())
            ),
            pipe.query_async::<(i64,)>(&mut redis),
        );
        #[derive(Deserialize)]
        struct Priced {
            subtotal_cents: i64,
            tax_cents: i64,
            total_cents: i64,
        }
        let priced: Priced = decode(&priced?)?;
        let (order_number,) = recorded?;
        #[derive(Serialize)]
        struct Out {
            order_number: i64,
            user_id: i64,
            item_count: i64,
            subtotal_cents: i64,
            tax_cents: i64,
            total_cents: i64,
        }
        Ok(canonical_json(&Out {
            order_number,
            user_id,
            item_count: args.items.iter().map(|i| i.quantity).sum(),
            subtotal_cents: priced.subtotal_cents,
            tax_cents: priced.tax_cents,
            total_cents: priced.total_cents,
        }))
    }
}
