//! perflab's Rust reference MCP server (servers/CONTRACT.md) on rmcp, axum and Tokio.

pub mod backends;
pub mod compute;
pub mod cpu_limit;
pub mod runtime_info;
pub mod tools;
pub mod validate;
