//! The CPU limit the Tokio workers follow: `ceil(cgroup quota / period)`, capped at the CPUs this
//! process may run on (its affinity), at least 1 — the same rule as Go's `GOMAXPROCS`, the JVM's
//! active processor count, Node's cluster and Python's workers (CONTRACT.md section 1).
//!
//! `std::thread::available_parallelism()` is not used for the quota: it rounds a fractional quota
//! down (1.5 CPUs → 1), so Rust would get fewer threads than the other runtimes under the same limit.

/// Where the quota is read, as the other servers read it: cgroup v2's `cpu.max`, then cgroup v1's
/// `cpu.cfs_quota_us` / `cpu.cfs_period_us` under the mount names distributions use.
const CGROUP_V2_CPU_MAX: &str = "/sys/fs/cgroup/cpu.max";
const CGROUP_V1_DIRS: [&str; 3] = [
    "/sys/fs/cgroup/cpu",
    "/sys/fs/cgroup/cpu,cpuacct",
    "/sys/fs/cgroup/cpuacct,cpu",
];

/// `ceil(quota / period)` CPUs, or `None` for no limit (a quota of `max` or ≤ 0) or unparsable text.
pub fn quota_cpus(quota: &str, period: &str) -> Option<usize> {
    let quota = quota.trim();
    if quota == "max" {
        return None;
    }
    // cgroup v1 writes -1 for no limit: it does not parse as unsigned, so it is None too.
    let quota: u64 = quota.parse().ok()?;
    let period: u64 = period.trim().parse().ok()?;
    if quota == 0 || period == 0 {
        return None;
    }
    usize::try_from(quota.div_ceil(period)).ok()
}

/// cgroup v2: the contents of `cpu.max`, `"<quota|max> <period>"`.
pub fn parse_cpu_max(contents: &str) -> Option<usize> {
    let mut fields = contents.split_whitespace();
    let (quota, period) = (fields.next()?, fields.next()?);
    quota_cpus(quota, period)
}

/// The number of worker threads: the quota's CPUs (if any) capped at the affinity CPUs, at least 1.
pub fn effective(quota: Option<usize>, affinity: usize) -> usize {
    quota.map_or(affinity, |q| q.min(affinity)).max(1)
}

/// The cgroup v2 quota if `cpu.max` exists, else the first cgroup v1 quota found.
fn cgroup_quota() -> Option<usize> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    if let Some(cpu_max) = read(CGROUP_V2_CPU_MAX) {
        return parse_cpu_max(&cpu_max);
    }
    CGROUP_V1_DIRS.iter().find_map(|dir| {
        let quota = read(&format!("{dir}/cpu.cfs_quota_us"))?;
        let period = read(&format!("{dir}/cpu.cfs_period_us"))?;
        quota_cpus(&quota, &period)
    })
}

/// CPUs in this process's affinity mask (`sched_getaffinity`); without it, std's count (which
/// also honours affinity).
fn affinity_cpus() -> usize {
    // SAFETY: a zeroed cpu_set_t is a valid empty set, and the kernel writes at most its size.
    let count = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
            libc::CPU_COUNT(&set)
        } else {
            0
        }
    };
    match usize::try_from(count) {
        Ok(n) if n > 0 => n,
        _ => std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
    }
}

/// The CPU limit of this process now.
pub fn detect() -> usize {
    effective(cgroup_quota(), affinity_cpus())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgroup_v2_cpu_max_rounds_up() {
        assert_eq!(parse_cpu_max("150000 100000\n"), Some(2));
        assert_eq!(parse_cpu_max("100000 100000"), Some(1));
        assert_eq!(parse_cpu_max("200000 100000"), Some(2));
        assert_eq!(parse_cpu_max("200001 100000"), Some(3));
        assert_eq!(parse_cpu_max("50000 100000"), Some(1));
        assert_eq!(parse_cpu_max("1000 100000"), Some(1));
        assert_eq!(parse_cpu_max("max 100000\n"), None);
        assert_eq!(parse_cpu_max(""), None);
        assert_eq!(parse_cpu_max("150000"), None);
        assert_eq!(parse_cpu_max("abc 100000"), None);
    }

    #[test]
    fn cgroup_v1_quota_and_period_round_up() {
        assert_eq!(quota_cpus("150000\n", "100000\n"), Some(2));
        assert_eq!(quota_cpus("250000", "100000"), Some(3));
        assert_eq!(quota_cpus("-1\n", "100000\n"), None);
        assert_eq!(quota_cpus("0", "100000"), None);
        assert_eq!(quota_cpus("150000", "0"), None);
        assert_eq!(quota_cpus("150000", ""), None);
    }

    #[test]
    fn quota_is_capped_at_affinity_and_at_least_one() {
        assert_eq!(effective(Some(2), 8), 2);
        assert_eq!(effective(Some(4), 2), 2);
        assert_eq!(effective(None, 2), 2);
        assert_eq!(effective(None, 0), 1);
        assert_eq!(effective(Some(0), 4), 1);
        // 1.5 CPUs on a 2-core machine: 2 workers, as GOMAXPROCS and the JVM give.
        assert_eq!(effective(parse_cpu_max("150000 100000"), 2), 2);
    }

    #[test]
    fn detects_at_least_one_cpu() {
        assert!(detect() >= 1);
    }
}
