//! The tools that call the fixture services (CONTRACT.md section 4): the HTTP
//! API and Redis, overlapping independent calls with `tokio::join!`.

use redis::AsyncCommands;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{
    PerflabServer,
    args::{CheckoutArgs, FetchArgs, LineItem, SearchArgs, UserIdArgs, in_range},
};
use crate::{backends::ToolError, compute::canonical_json};

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

fn decode<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, ToolError> {
    serde_json::from_slice(body)
        .map_err(|e| ToolError::Upstream(format!("fixture API answered malformed JSON: {e}")))
}

fn parse_id(s: &str, what: &str) -> Result<i64, ToolError> {
    s.parse()
        .map_err(|_| ToolError::Backend(format!("malformed {what} {s:?}")))
}

impl PerflabServer {
    pub(super) async fn fetch_upstream_text(&self, args: FetchArgs) -> Result<String, ToolError> {
        let delay = in_range("delay_ms", args.delay_ms, 0, 10_000)?;
        let body = self
            .state
            .backends
            .api(reqwest::Method::GET, &format!("/delay?ms={delay}"), None)
            .await?;
        String::from_utf8(body)
            .map_err(|_| ToolError::Upstream("fixture API answered non-UTF-8".into()))
    }

    pub(super) async fn search_products_text(&self, args: SearchArgs) -> Result<String, ToolError> {
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

    pub(super) async fn get_user_cart_text(&self, args: UserIdArgs) -> Result<String, ToolError> {
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

    pub(super) async fn checkout_text(&self, args: CheckoutArgs) -> Result<String, ToolError> {
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
