//! Entry point: configuration from the environment, the Tokio runtime sized to
//! the CPU limit, routes, and graceful shutdown.

use std::{num::NonZeroUsize, process::ExitCode, sync::Arc, time::Duration, time::Instant};

use axum::{
    Router,
    body::Body,
    extract::{Path, Request, State},
    http::{Method, StatusCode, header},
    middleware::{self, Next},
    response::Response,
    routing::get,
    serve::ListenerExt,
};
use futures::StreamExt;
use perflab_server_rust::{
    backends::{Backends, ToolError},
    compute::canonical_json,
    cpu_limit, runtime_info,
    tools::{AppState, PerflabServer},
    validate::DocumentValidator,
};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio_util::sync::CancellationToken;

/// Whole exit, in-flight requests included, stays inside the contract's 5 s.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(4500);
/// The contract's body limit (rmcp's default is 4 MiB): a 1 MiB echo message of
/// control characters is 6 MiB once JSON-escaped. rmcp answers 413 above it.
const MAX_BODY_BYTES: usize = 8 << 20;

struct Config {
    port: u16,
    stateless: bool,
    json_response: bool,
    worker_threads: usize,
}

fn flag(name: &str) -> Result<bool, String> {
    match std::env::var(name).as_deref() {
        Err(_) | Ok("") | Ok("0") => Ok(false),
        Ok("1") => Ok(true),
        Ok(other) => Err(format!("{name} must be 0 or 1, got {other:?}")),
    }
}

fn load_config() -> Result<Config, String> {
    let port = match std::env::var("PORT") {
        Ok(p) if !p.is_empty() => p
            .parse::<u16>()
            .ok()
            .filter(|p| *p > 0)
            .ok_or(format!("PORT must be 1..65535, got {p:?}"))?,
        _ => 8080,
    };
    let stateless = flag("MCP_STATELESS")?;
    let json_response = flag("MCP_JSON_RESPONSE")?;
    // rmcp answers with application/json only on its stateless path; a stateful
    // server must not silently fall back to SSE.
    if json_response && !stateless {
        return Err("MCP_JSON_RESPONSE=1 needs MCP_STATELESS=1: rmcp's stateful transport answers POSTs with SSE only".into());
    }
    // ceil(cgroup v2/v1 quota) capped at the affinity CPUs, as the other runtimes
    // (available_parallelism would round 1.5 CPUs down to 1); TOKIO_WORKER_THREADS
    // overrides it as in Tokio itself.
    let worker_threads = match std::env::var("TOKIO_WORKER_THREADS") {
        Ok(v) => v
            .parse::<NonZeroUsize>()
            .map_err(|_| format!("TOKIO_WORKER_THREADS must be a positive integer, got {v:?}"))?
            .get(),
        Err(_) => cpu_limit::detect(),
    };
    Ok(Config {
        port,
        stateless,
        json_response,
        worker_threads,
    })
}

fn main() -> ExitCode {
    let result = load_config().and_then(|cfg| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(cfg.worker_threads)
            .enable_all()
            .build()
            .map_err(|e| format!("tokio runtime: {e}"))?
            .block_on(run(cfg))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            println!("fatal: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cfg: Config) -> Result<(), String> {
    let started = Instant::now();
    // reqwest is built without a bundled crypto provider; ring compiles faster than aws-lc.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let validator = DocumentValidator::new().map_err(|e| format!("document schema: {e}"))?;
    let state = Arc::new(AppState::new(validator, Backends::from_env()?));

    // Sessions live until DELETE or shutdown (rmcp's default closes them after 5 idle minutes).
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = None;
    let sessions = Arc::new(sessions);

    let mcp_token = CancellationToken::new();
    let mcp = StreamableHttpService::new(
        {
            let state = state.clone();
            move || Ok(PerflabServer::new(state.clone()))
        },
        sessions.clone(),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(!cfg.stateless)
            .with_json_response(cfg.json_response)
            .with_max_request_body_bytes(MAX_BODY_BYTES)
            .with_cancellation_token(mcp_token.child_token()),
    );

    let shutdown = CancellationToken::new();
    let parallelism = cfg.worker_threads;
    let (stateless, json_response) = (cfg.stateless, cfg.json_response);
    let app = Router::new()
        .route_service("/mcp", mcp)
        .layer(middleware::from_fn_with_state(
            McpGate {
                stateless: cfg.stateless,
                shutdown: shutdown.clone(),
                sessions: sessions.clone(),
            },
            mcp_gate,
        ))
        .route(
            "/health",
            get(|| async { json(StatusCode::OK, r#"{"status":"ok"}"#.into()) }),
        )
        .route(
            "/rest/time",
            get(|| async {
                let now_ms = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default()
                    .as_millis();
                json(StatusCode::OK, format!(r#"{{"now_ms":{now_ms}}}"#))
            }),
        )
        .route("/rest/users/{id}", get(rest_user).with_state(state.clone()))
        .route(
            "/debug/runtime",
            get(move || {
                let sessions = sessions.clone();
                async move {
                    let open = if stateless {
                        None
                    } else {
                        Some(sessions.sessions.read().await.len())
                    };
                    let info =
                        runtime_info::read(started, parallelism, stateless, json_response, open);
                    json(
                        StatusCode::OK,
                        serde_json::to_string(&info).unwrap_or_default(),
                    )
                }
            }),
        );

    // Handlers go in before the start line: a SIGTERM sent right after it
    // must shut down gracefully, not find the default action (exit by signal).
    let stop_signal = stop_signal()?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", cfg.port))
        .await
        .map_err(|e| format!("listen on 127.0.0.1:{}: {e}", cfg.port))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    // Small SSE writes must not wait for Nagle's algorithm.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    println!(
        "perflab rust server listening on http://{addr} (stateless={stateless} json_response={json_response} worker_threads={parallelism})"
    );

    let server = axum::serve(listener, app).with_graceful_shutdown({
        let shutdown = shutdown.clone();
        async move { shutdown.cancelled().await }
    });
    let server = tokio::spawn(async move { server.await });
    stop_signal.await;
    println!("shutting down: finishing in-flight requests");
    shutdown.cancel();
    match tokio::time::timeout(SHUTDOWN_GRACE, server).await {
        Ok(_) => println!("stopped"),
        Err(_) => println!("shutdown deadline reached, closing remaining connections"),
    }
    mcp_token.cancel();
    Ok(())
}

/// Registers SIGTERM and SIGINT at once; the future resolves on the first.
fn stop_signal() -> Result<impl std::future::Future<Output = ()>, String> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).map_err(|e| format!("SIGTERM handler: {e}"))?;
    let mut int = signal(SignalKind::interrupt()).map_err(|e| format!("SIGINT handler: {e}"))?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    })
}

#[derive(Clone)]
struct McpGate {
    stateless: bool,
    shutdown: CancellationToken,
    sessions: Arc<LocalSessionManager>,
}

/// Adapts rmcp to the contract where they differ: GET event streams end when
/// shutdown starts (they never go idle, while POSTs are left to finish), and
/// DELETE answers 404 for an unknown session and 204 instead of rmcp's 202.
async fn mcp_gate(State(gate): State<McpGate>, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    if method == Method::DELETE
        && !gate.stateless
        && let Some(id) = request
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        && !gate.sessions.sessions.read().await.contains_key(id)
    {
        return Response::builder()
            .status(StatusCode::NOT_FOUND)
            .body(Body::from("Not Found: Session not found"))
            .expect("static response parts are valid");
    }
    let mut response = next.run(request).await;
    if method == Method::DELETE && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    if method != Method::GET {
        return response;
    }
    let (parts, body) = response.into_parts();
    let stream = body
        .into_data_stream()
        .take_until(gate.shutdown.cancelled_owned());
    Response::from_parts(parts, Body::from_stream(stream))
}

async fn rest_user(State(state): State<Arc<AppState>>, Path(raw): Path<String>) -> Response {
    let well_formed = !raw.is_empty()
        && raw.len() <= 9
        && !raw.starts_with('0')
        && raw.bytes().all(|b| b.is_ascii_digit());
    if !well_formed {
        return json(StatusCode::BAD_REQUEST, r#"{"error":"invalid id"}"#.into());
    }
    match state
        .backends
        .user(raw.parse().expect("at most 9 digits fit i32"))
        .await
    {
        Ok(user) => json(StatusCode::OK, canonical_json(&user)),
        Err(ToolError::NotFound(_)) => {
            json(StatusCode::NOT_FOUND, r#"{"error":"not found"}"#.into())
        }
        Err(_) => json(
            StatusCode::SERVICE_UNAVAILABLE,
            r#"{"error":"database unavailable"}"#.into(),
        ),
    }
}

fn json(status: StatusCode, body: String) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .expect("static response parts are valid")
}
