//! The ten tools of CONTRACT.md section 4 as an rmcp tool router. What each
//! tool accepts is in `args`; the bodies of those that call the fixture
//! services are in `fixtures`.

use std::sync::Arc;

use rmcp::{
    ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, ContentBlock},
    tool, tool_handler, tool_router,
};
use serde::Serialize;

use crate::{
    backends::{Backends, ToolError},
    compute::{MAX_ECHO_BYTES, canonical_json, fibonacci, pad_message, transform_data},
    validate::DocumentValidator,
};

mod args;
mod fixtures;
mod json_int;

use args::{
    CART_SCHEMA, CHECKOUT_SCHEMA, CheckoutArgs, ECHO_SCHEMA, EchoArgs, FETCH_SCHEMA,
    FIBONACCI_SCHEMA, FetchArgs, FibonacciArgs, GET_USER_SCHEMA, GetUserArgs, SEARCH_SCHEMA,
    SLEEP_SCHEMA, SearchArgs, SleepArgs, TRANSFORM_SCHEMA, TransformArgs, UserIdArgs,
    VALIDATE_SCHEMA, ValidateArgs, in_range, schema,
};

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

fn text(s: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

fn finish(result: Result<String, ToolError>) -> CallToolResult {
    match result {
        Ok(s) => text(s),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
    }
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
