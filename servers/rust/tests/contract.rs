//! Drives the real binary over Streamable HTTP and checks it against
//! servers/contract/vectors.json and the transport rules of CONTRACT.md.

use std::{
    io::{BufRead, BufReader},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const PROTOCOL: &str = "2025-06-18";

struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(env: &[(&str, &str)]) -> Self {
        // Ask the OS for a free port, then hand it to the server.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_server"));
        cmd.env("PORT", port.to_string())
            .env_remove("MCP_STATELESS")
            .env_remove("MCP_JSON_RESPONSE")
            .env_remove("REDIS_URL")
            .env_remove("FIXTURE_API_URL")
            .env_remove("DATABASE_URL")
            .stdout(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start server");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(
            line.contains(&format!("listening on http://127.0.0.1:{port}")),
            "start line: {line}"
        );
        Server {
            child,
            base: format!("http://127.0.0.1:{port}"),
        }
    }

    /// SIGTERM, then the exit status (the contract wants 0 within 5 s).
    fn terminate(mut self) -> (Option<i32>, Duration) {
        let started = Instant::now();
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let status = self.child.wait().unwrap();
        (status.code(), started.elapsed())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Client {
    http: reqwest::Client,
    base: String,
    session: Option<String>,
}

struct Reply {
    status: u16,
    content_type: String,
    session: Option<String>,
    message: Option<Value>,
}

impl Client {
    fn new(base: &str) -> Self {
        Client {
            http: http(),
            base: base.to_owned(),
            session: None,
        }
    }

    async fn post(&self, body: Value) -> Reply {
        let mut req = self
            .http
            .post(format!("{}/mcp", self.base))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        // The version header follows initialize; initialize itself names it in the body.
        if body["method"] != "initialize" {
            req = req.header("MCP-Protocol-Version", PROTOCOL);
        }
        let mut req = req.body(body.to_string());
        if let Some(s) = &self.session {
            req = req.header("Mcp-Session-Id", s);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let header = |name| {
            resp.headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_owned())
        };
        let content_type = header("content-type").unwrap_or_default();
        let session = header("mcp-session-id");
        let text = resp.text().await.unwrap();
        // SSE may start with rmcp's empty priming event: take the first event with data.
        let message = if content_type.starts_with("text/event-stream") {
            text.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .find(|d| !d.is_empty())
                .map(|d| serde_json::from_str(d).unwrap())
        } else if text.is_empty() {
            None
        } else {
            Some(serde_json::from_str(&text).unwrap_or(Value::String(text)))
        };
        Reply {
            status,
            content_type,
            session,
            message,
        }
    }

    async fn initialize(&mut self) -> Reply {
        let reply = self
            .post(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":PROTOCOL,"capabilities":{},"clientInfo":{"name":"contract-test","version":"1"}}}))
            .await;
        self.session = reply.session.clone();
        let initialized = self
            .post(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
            .await;
        assert_eq!(initialized.status, 202);
        reply
    }

    async fn call(&self, name: &str, arguments: &Value) -> Value {
        let reply = self
            .post(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":name,"arguments":arguments}}))
            .await;
        assert_eq!(reply.status, 200);
        reply.message.expect("a JSON-RPC answer")
    }

    async fn send(&self, method: reqwest::Method) -> u16 {
        let mut req = self
            .http
            .request(method, format!("{}/mcp", self.base))
            .header("MCP-Protocol-Version", PROTOCOL);
        if let Some(s) = &self.session {
            req = req
                .header("Mcp-Session-Id", s)
                .header("Accept", "text/event-stream");
        }
        req.send().await.unwrap().status().as_u16()
    }
}

/// reqwest is built without a bundled crypto provider (as in the server).
fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

async fn get(url: String) -> reqwest::Response {
    http().get(url).send().await.unwrap()
}

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../contract/vectors.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Calls every tool vector and compares the result text byte for byte.
async fn check_vectors(client: &Client) {
    let vectors = vectors();
    let tools = vectors["tools"].as_array().unwrap();
    assert!(tools.len() >= 30);
    for v in tools {
        let answer = client
            .call(v["tool"].as_str().unwrap(), &v["arguments"])
            .await;
        let result = &answer["result"];
        let name = &v["name"];
        assert_ne!(result["isError"], json!(true), "{name}: {answer}");
        assert!(result.get("structuredContent").is_none(), "{name}");
        let content = result["content"].as_array().unwrap();
        assert_eq!(content.len(), 1, "{name}");
        assert_eq!(content[0]["type"], "text", "{name}");
        let text = content[0]["text"].as_str().unwrap();
        if let Some(want) = v.get("text") {
            assert_eq!(text, want.as_str().unwrap(), "{name}");
        } else {
            assert_eq!(
                text.len() as u64,
                v["text_bytes"].as_u64().unwrap(),
                "{name}"
            );
            let digest: String = Sha256::digest(text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(digest, v["text_sha256"].as_str().unwrap(), "{name}");
        }
    }
}

fn rejected(answer: &Value) -> bool {
    answer["result"]["isError"] == json!(true) || answer["error"]["code"] == json!(-32602)
}

#[tokio::test]
async fn stateful_session_matches_the_vectors_and_the_transport_rules() {
    let server = Server::start(&[]);
    let mut client = Client::new(&server.base);
    let init = client.initialize().await;
    assert_eq!(init.status, 200);
    assert!(init.content_type.starts_with("text/event-stream"));
    assert!(
        client.session.is_some(),
        "stateful initialize issues a session id"
    );
    let result = &init.message.unwrap()["result"];
    assert_eq!(
        result["serverInfo"],
        json!({"name":"perflab-rust","version":"1.0.0"})
    );
    assert!(result["capabilities"]["tools"].is_object());
    assert!(result.get("instructions").is_none());

    let list = client
        .post(json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}))
        .await
        .message
        .unwrap();
    let mut names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "checkout",
            "echo",
            "fetch_upstream",
            "fibonacci",
            "get_user",
            "get_user_cart",
            "search_products",
            "sleep",
            "transform_data",
            "validate_document"
        ]
    );
    let echo = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap();
    assert_eq!(
        echo["inputSchema"],
        json!({"type":"object","properties":{"message":{"type":"string"},"pad_to_bytes":{"type":"integer","minimum":0,"maximum":1048576}},"required":["message"]})
    );

    check_vectors(&client).await;

    for (tool, args) in [
        ("fibonacci", json!({"n":40})),
        ("fibonacci", json!({"n":"7"})),
        ("fibonacci", json!({})),
        ("fibonacci", json!({"n":10.5})),
        ("transform_data", json!({"size":10000000})),
        ("echo", json!({"message":"x","pad_to_bytes":-1})),
        ("validate_document", json!({"document":[1]})),
        ("search_products", json!({"query":"Lamp"})),
        ("checkout", json!({"user_id":1,"items":[]})),
        ("no_such_tool", json!({})),
    ] {
        assert!(
            rejected(&client.call(tool, &args).await),
            "{tool} {args} must be rejected"
        );
    }
    // A whole-number float is a JSON Schema integer (CONTRACT.md section 3).
    for args in [json!({"n":10.0}), json!({"n":1e1})] {
        let answer = client.call("fibonacci", &args).await;
        assert_eq!(
            answer["result"]["content"][0]["text"], r#"{"n":10,"value":55}"#,
            "fibonacci {args}"
        );
    }
    // Backends are lazy and unset here: the I/O tools fail as tool errors.
    let answer = client.call("get_user", &json!({"id":1})).await;
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("backend_unavailable:")
    );

    let runtime: Value = get(format!("{}/debug/runtime", server.base))
        .await
        .json_value()
        .await;
    assert_eq!(runtime["runtime"]["name"], "rust");
    assert_eq!(
        runtime["mcp"],
        json!({"stateless":false,"json_response":false,"sessions":1})
    );
    assert!(runtime["parallelism"].as_u64().unwrap() >= 1);
    assert!(runtime["rss_bytes"].as_u64().unwrap() > 0);
    // No collector: no pause, exactly.
    assert_eq!(runtime["gc_pauses_recent"], json!([]));

    assert_eq!(client.send(reqwest::Method::DELETE).await, 204);
    assert_eq!(
        client.send(reqwest::Method::DELETE).await,
        404,
        "a deleted session is unknown"
    );
    assert_eq!(
        client
            .post(json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}))
            .await
            .status,
        404
    );

    let (code, took) = server.terminate();
    assert_eq!(code, Some(0));
    assert!(took < Duration::from_secs(5));
}

#[tokio::test]
async fn get_stream_opens_at_once_and_shutdown_closes_it() {
    let server = Server::start(&[]);
    let mut client = Client::new(&server.base);
    client.initialize().await;
    let stream = client
        .http
        .get(format!("{}/mcp", server.base))
        .header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", client.session.as_deref().unwrap())
        .header("MCP-Protocol-Version", PROTOCOL)
        .send();
    let response = tokio::time::timeout(Duration::from_secs(2), stream)
        .await
        .expect("headers at once")
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let body = tokio::spawn(response.text());
    let (code, took) = server.terminate();
    assert_eq!(code, Some(0));
    assert!(
        took < Duration::from_secs(5),
        "an open GET stream must not hold shutdown"
    );
    tokio::time::timeout(Duration::from_secs(1), body)
        .await
        .expect("stream ended")
        .unwrap()
        .ok();
}

#[tokio::test]
async fn stateless_mode_answers_without_a_session_and_refuses_get_and_delete() {
    let server = Server::start(&[("MCP_STATELESS", "1")]);
    let client = Client::new(&server.base);
    // A stateless client may skip initialize.
    let answer = client.call("fibonacci", &json!({"n":10})).await;
    assert_eq!(
        answer["result"]["content"][0]["text"],
        r#"{"n":10,"value":55}"#
    );
    let init = client
        .post(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}))
        .await;
    assert_eq!(init.status, 200);
    assert!(init.session.is_none());
    check_vectors(&client).await;
    assert_eq!(client.send(reqwest::Method::GET).await, 405);
    assert_eq!(client.send(reqwest::Method::DELETE).await, 405);
    let runtime: Value = get(format!("{}/debug/runtime", server.base))
        .await
        .json_value()
        .await;
    assert_eq!(
        runtime["mcp"],
        json!({"stateless":true,"json_response":false,"sessions":null})
    );
    assert_eq!(server.terminate().0, Some(0));
}

/// The start line comes after the signal handlers: a SIGTERM sent the moment it
/// is read is a graceful stop (exit 0), never the default action.
#[test]
fn sigterm_right_after_the_start_line_exits_zero() {
    for _ in 0..20 {
        let server = Server::start(&[]);
        assert_eq!(server.terminate().0, Some(0));
    }
}

#[tokio::test]
async fn json_response_mode_answers_application_json() {
    let server = Server::start(&[("MCP_STATELESS", "1"), ("MCP_JSON_RESPONSE", "1")]);
    let client = Client::new(&server.base);
    let reply = client
        .post(json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello","pad_to_bytes":70}}}))
        .await;
    assert_eq!(reply.content_type, "application/json");
    assert_eq!(
        reply.message.unwrap()["result"]["content"][0]["text"],
        "helloABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/A"
    );
    assert_eq!(server.terminate().0, Some(0));
}

#[test]
fn refuses_modes_it_cannot_serve() {
    for env in [
        vec![("MCP_JSON_RESPONSE", "1")],
        vec![("MCP_STATELESS", "true")],
        vec![("PORT", "70000")],
    ] {
        let status = Command::new(env!("CARGO_BIN_EXE_server"))
            .env_remove("MCP_STATELESS")
            .env_remove("MCP_JSON_RESPONSE")
            .env("PORT", "1")
            .envs(env.clone())
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(!status.success(), "{env:?} must exit non-zero");
    }
}

#[tokio::test]
async fn plain_routes_answer_canonical_json() {
    let server = Server::start(&[]);
    let base = server.base.clone();
    let get = |path: &str| get(format!("{base}{path}"));
    let health = get("/health").await;
    assert_eq!(health.headers()["content-type"], "application/json");
    assert_eq!(health.text().await.unwrap(), r#"{"status":"ok"}"#);
    let time = get("/rest/time").await.text().await.unwrap();
    assert!(
        time.starts_with(r#"{"now_ms":"#) && time.ends_with('}'),
        "{time}"
    );
    for bad in [
        "0",
        "01",
        "abc",
        "1234567890",
        "+1",
        "%2B1",
        "%201",
        "1e3",
        "-1",
    ] {
        let resp = get(&format!("/rest/users/{bad}")).await;
        assert_eq!(resp.status().as_u16(), 400, "{bad}");
        assert_eq!(resp.text().await.unwrap(), r#"{"error":"invalid id"}"#);
    }
    let resp = get("/rest/users/1").await;
    assert_eq!(resp.status().as_u16(), 503);
    assert_eq!(
        resp.text().await.unwrap(),
        r#"{"error":"database unavailable"}"#
    );
    assert_eq!(server.terminate().0, Some(0));
}

/// A stand-in for the fixture API's /delay: answers like the fixture below
/// 5000 ms and with HTTP 503 above, so both result paths are observable.
async fn start_delay_api() -> String {
    use axum::{Router, extract::Query, http::StatusCode, routing::get};
    #[derive(serde::Deserialize)]
    struct Delay {
        ms: u64,
    }
    let app = Router::new().route(
        "/delay",
        get(|Query(d): Query<Delay>| async move {
            if d.ms < 5000 {
                (StatusCode::OK, format!(r#"{{"delay_ms":{}}}"#, d.ms))
            } else {
                (StatusCode::SERVICE_UNAVAILABLE, String::new())
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::test]
async fn fetch_upstream_passes_the_body_through_and_reports_upstream_errors() {
    let api = start_delay_api().await;
    let server = Server::start(&[("FIXTURE_API_URL", api.as_str()), ("MCP_STATELESS", "1")]);
    let client = Client::new(&server.base);
    for _ in 0..3 {
        let answer = client.call("fetch_upstream", &json!({"delay_ms":7})).await;
        assert_eq!(answer["result"]["content"][0]["text"], r#"{"delay_ms":7}"#);
    }
    let answer = client
        .call("fetch_upstream", &json!({"delay_ms":6000}))
        .await;
    assert_eq!(answer["result"]["isError"], true);
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("upstream_error:"),
        "{answer}"
    );
    assert_eq!(server.terminate().0, Some(0));
}

#[test]
fn embedded_schema_is_the_contract_copy() {
    let contract = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../contract/document.schema.json"
    ))
    .unwrap();
    assert_eq!(perflab_server_rust::validate::DOCUMENT_SCHEMA, contract);
}

trait JsonValue {
    async fn json_value(self) -> Value;
}

impl JsonValue for reqwest::Response {
    async fn json_value(self) -> Value {
        serde_json::from_str(&self.text().await.unwrap()).unwrap()
    }
}
