//! `/debug/runtime` (CONTRACT.md section 7): cheap reads of /proc, polled once a second.

use std::time::Instant;

use serde::Serialize;

#[derive(Serialize)]
struct RuntimeName {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct Mcp {
    stateless: bool,
    json_response: bool,
    sessions: Option<usize>,
}

/// Key order is the contract's; Rust has no managed heap or GC, hence the nulls and zeros.
#[derive(Serialize)]
pub struct RuntimeInfo {
    runtime: RuntimeName,
    pid: u32,
    uptime_ms: u128,
    parallelism: usize,
    heap_used_bytes: Option<u64>,
    heap_total_bytes: Option<u64>,
    rss_bytes: Option<u64>,
    gc_count: u32,
    gc_pause_total_ms: u32,
    /// Always empty: no collector, so no pause to list (exact, like the zeros).
    gc_pauses_recent: [[f64; 2]; 0],
    threads: Option<u64>,
    goroutines: Option<u64>,
    mcp: Mcp,
}

pub fn read(
    started: Instant,
    parallelism: usize,
    stateless: bool,
    json_response: bool,
    sessions: Option<usize>,
) -> RuntimeInfo {
    RuntimeInfo {
        runtime: RuntimeName {
            name: "rust",
            version: env!("PERFLAB_RUSTC_VERSION"),
        },
        pid: std::process::id(),
        uptime_ms: started.elapsed().as_millis(),
        parallelism,
        heap_used_bytes: None,
        heap_total_bytes: None,
        rss_bytes: rss_bytes(),
        gc_count: 0,
        gc_pause_total_ms: 0,
        gc_pauses_recent: [],
        threads: threads(),
        goroutines: None,
        mcp: Mcp {
            stateless,
            json_response,
            sessions,
        },
    }
}

/// Field 2 of /proc/self/statm (resident pages) times the page size.
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page_size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page_size).ok()?)
}

fn threads() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|v| v.trim().parse().ok())
}
