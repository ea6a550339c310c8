//! Lazily created clients for the fixtures: Redis, the fixture HTTP API and
//! Postgres. None is contacted until a tool or route needs it.

use std::{fmt, str::FromStr, time::Duration};

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use serde::Serialize;
use tokio::sync::OnceCell;
use tokio_postgres::NoTls;

use crate::compute::utc_timestamp;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
const REDIS_COMMAND_TIMEOUT: Duration = Duration::from_secs(5);
const POSTGRES_QUERY_TIMEOUT: Duration = Duration::from_secs(5);
const POSTGRES_WAIT_TIMEOUT: Duration = Duration::from_secs(5);
const API_REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
const POSTGRES_MAX_CONNECTIONS: usize = 25;
const USER_BY_ID: &str = "SELECT id, name, email, created_at FROM users WHERE id = $1";

/// A tool failure; its text starts with the contract's error code.
#[derive(Debug)]
pub enum ToolError {
    InvalidArgument(String),
    Backend(String),
    Upstream(String),
    NotFound(String),
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidArgument(m) => write!(f, "invalid_argument: {m}"),
            Self::Backend(m) => write!(f, "backend_unavailable: {m}"),
            Self::Upstream(m) => write!(f, "upstream_error: {m}"),
            Self::NotFound(m) => write!(f, "not_found: {m}"),
        }
    }
}

impl From<redis::RedisError> for ToolError {
    fn from(e: redis::RedisError) -> Self {
        Self::Backend(format!("redis: {e}"))
    }
}

#[derive(Serialize)]
pub struct User {
    pub id: i32,
    pub name: String,
    pub email: String,
    pub created_at: String,
}

pub struct Backends {
    redis_url: Option<String>,
    redis: OnceCell<ConnectionManager>,
    api_url: Option<String>,
    http: reqwest::Client,
    database_url: Option<String>,
    postgres: OnceCell<Pool>,
}

impl Backends {
    /// Reads the backend URLs; nothing connects here.
    pub fn from_env() -> Result<Self, String> {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        // One client for the whole process: reqwest keeps idle keep-alive
        // connections per host for 90 s, up to 8,192 (CONTRACT.md section 6:
        // more than the matrix's 5,000 VUs, so a burst never churns them).
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(8192)
            .pool_idle_timeout(Duration::from_secs(90))
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(API_REQUEST_TIMEOUT)
            .build()
            .map_err(|e| format!("HTTP client: {e}"))?;
        Ok(Self {
            redis_url: var("REDIS_URL"),
            redis: OnceCell::new(),
            api_url: var("FIXTURE_API_URL").map(|u| u.trim_end_matches('/').to_owned()),
            http,
            database_url: var("DATABASE_URL"),
            postgres: OnceCell::new(),
        })
    }

    /// The multiplexed Redis connection, established on first use. A failed
    /// first connect is not cached, so the next call tries again.
    pub async fn redis(&self) -> Result<ConnectionManager, ToolError> {
        let url = self
            .redis_url
            .as_deref()
            .ok_or_else(|| ToolError::Backend("REDIS_URL is not set".into()))?;
        let manager = self
            .redis
            .get_or_try_init(|| async {
                let client = redis::Client::open(url)?;
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(CONNECT_TIMEOUT))
                    .set_response_timeout(Some(REDIS_COMMAND_TIMEOUT))
                    .set_number_of_retries(1);
                ConnectionManager::new_with_config(client, config).await
            })
            .await?;
        Ok(manager.clone())
    }

    /// Calls the fixture API and returns the body of a 2xx answer.
    pub async fn api(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<String>,
    ) -> Result<Vec<u8>, ToolError> {
        let base = self
            .api_url
            .as_deref()
            .ok_or_else(|| ToolError::Backend("FIXTURE_API_URL is not set".into()))?;
        let mut request = self.http.request(method.clone(), format!("{base}{path}"));
        if let Some(body) = body {
            request = request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body);
        }
        let response = request
            .send()
            .await
            .map_err(|e| ToolError::Backend(format!("fixture API: {e}")))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|e| ToolError::Backend(format!("fixture API: {e}")))?;
        if !status.is_success() {
            return Err(ToolError::Upstream(format!(
                "fixture API {method} {path} answered HTTP {}",
                status.as_u16()
            )));
        }
        Ok(bytes.to_vec())
    }

    async fn postgres(&self) -> Result<&Pool, ToolError> {
        let url = self
            .database_url
            .as_deref()
            .ok_or_else(|| ToolError::Backend("DATABASE_URL is not set".into()))?;
        // Building the pool opens no connection: deadpool creates them on demand.
        self.postgres
            .get_or_try_init(|| async {
                let mut config = tokio_postgres::Config::from_str(url)
                    .map_err(|e| ToolError::Backend(format!("DATABASE_URL: {e}")))?;
                config.connect_timeout(CONNECT_TIMEOUT);
                let manager = Manager::from_config(
                    config,
                    NoTls,
                    ManagerConfig {
                        recycling_method: RecyclingMethod::Fast,
                    },
                );
                Pool::builder(manager)
                    .max_size(POSTGRES_MAX_CONNECTIONS)
                    .runtime(Runtime::Tokio1)
                    .wait_timeout(Some(POSTGRES_WAIT_TIMEOUT))
                    .create_timeout(Some(CONNECT_TIMEOUT))
                    .build()
                    .map_err(|e| ToolError::Backend(format!("postgres pool: {e}")))
            })
            .await
    }

    /// Primary-key lookup of `users` (CONTRACT.md 4.10); the statement is
    /// prepared once per connection and cached by deadpool.
    pub async fn user(&self, id: i32) -> Result<User, ToolError> {
        let pool = self.postgres().await?;
        // Two budgets, as in every server (CONTRACT.md section 6): the pool's
        // wait for a free connection (5 s), then 5 s for the query.
        let client = pool
            .get()
            .await
            .map_err(|e| ToolError::Backend(format!("postgres: {e}")))?;
        let query = async {
            let statement = client
                .prepare_cached(USER_BY_ID)
                .await
                .map_err(|e| format!("{e}"))?;
            client
                .query_opt(&statement, &[&id])
                .await
                .map_err(|e| format!("{e}"))
        };
        let row = tokio::time::timeout(POSTGRES_QUERY_TIMEOUT, query)
            .await
            .map_err(|_| ToolError::Backend("postgres: query timed out".into()))?
            .map_err(|e| ToolError::Backend(format!("postgres: {e}")))?
            .ok_or_else(|| ToolError::NotFound(format!("user {id}")))?;
        let created: std::time::SystemTime = column(&row, 3)?;
        let unix_secs = match created.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => d.as_secs() as i64,
            Err(e) => -(e.duration().as_secs_f64().ceil() as i64),
        };
        Ok(User {
            id: column(&row, 0)?,
            name: column(&row, 1)?,
            email: column(&row, 2)?,
            created_at: utc_timestamp(unix_secs),
        })
    }
}

fn column<'a, T: tokio_postgres::types::FromSql<'a>>(
    row: &'a tokio_postgres::Row,
    index: usize,
) -> Result<T, ToolError> {
    row.try_get(index)
        .map_err(|e| ToolError::Backend(format!("postgres: {e}")))
}
