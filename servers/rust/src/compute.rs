//! Pure, deterministic work of the CPU tools (CONTRACT.md sections 4.1-4.4).

use serde::Serialize;

/// The repeating padding of `echo`.
const PAD_ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Largest `message` and `pad_to_bytes` that `echo` accepts (1 MiB).
pub const MAX_ECHO_BYTES: usize = 1 << 20;

/// Appends alphabet bytes until the UTF-8 length is `pad_to`; a longer message is
/// returned unchanged, never truncated.
pub fn pad_message(message: String, pad_to: usize) -> String {
    if message.len() >= pad_to {
        return message;
    }
    let mut out = message.into_bytes();
    let missing = pad_to - out.len();
    out.reserve_exact(missing);
    out.extend(PAD_ALPHABET.iter().cycle().take(missing));
    // The message was valid UTF-8 and the padding is ASCII.
    String::from_utf8(out).expect("ASCII padding keeps UTF-8 valid")
}

/// Deliberately the naive double recursion: the CPU workload every server runs
/// identically, so it must not be memoised or turned into a loop.
pub fn fibonacci(n: u32) -> i64 {
    if n < 2 {
        return i64::from(n);
    }
    fibonacci(n - 1) + fibonacci(n - 2)
}

/// Marsaglia's 13/17/5 xorshift on 32-bit unsigned integers.
pub struct Xorshift32(u32);

impl Xorshift32 {
    pub fn new(seed: u32) -> Self {
        Self(seed)
    }

    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }
}

const CATEGORIES: [&str; 8] = [
    "books",
    "electronics",
    "garden",
    "grocery",
    "health",
    "home",
    "sports",
    "toys",
];
const TRANSFORM_SEED: u32 = 42;

struct Record {
    id: u32,
    category: &'static str,
    region: u8,
    amount_cents: i64,
    quantity: i64,
}

#[derive(Serialize, Default)]
struct Regions {
    apac: u32,
    emea: u32,
    latam: u32,
    na: u32,
}

#[derive(Serialize)]
struct Group {
    category: &'static str,
    count: usize,
    total_amount_cents: i64,
    total_quantity: i64,
    revenue_cents: i64,
    min_amount_cents: i64,
    max_amount_cents: i64,
    mean_amount_cents: i64,
    p50_amount_cents: i64,
    top_ids: Vec<u32>,
    regions: Regions,
}

#[derive(Serialize)]
pub struct Transformed {
    size: usize,
    groups: Vec<Group>,
}

/// Generates, sorts, groups and aggregates `size` records exactly as
/// CONTRACT.md section 4.4 prescribes; nothing is cached between calls.
pub fn transform_data(size: usize) -> Transformed {
    let mut rng = Xorshift32::new(TRANSFORM_SEED);
    let mut records: Vec<Record> = (0..size as u32)
        .map(|id| Record {
            id,
            category: CATEGORIES[(rng.next() % 8) as usize],
            region: (rng.next() % 4) as u8,
            amount_cents: i64::from(rng.next() % 100_000),
            quantity: i64::from(1 + rng.next() % 20),
        })
        .collect();
    records.sort_by(|a, b| {
        a.category
            .cmp(b.category)
            .then(b.amount_cents.cmp(&a.amount_cents))
            .then(a.id.cmp(&b.id))
    });

    let groups = records
        .chunk_by(|a, b| a.category == b.category)
        .map(|group| {
            let mut g = Group {
                category: group[0].category,
                count: group.len(),
                total_amount_cents: 0,
                total_quantity: 0,
                revenue_cents: 0,
                min_amount_cents: group[group.len() - 1].amount_cents,
                max_amount_cents: group[0].amount_cents,
                mean_amount_cents: 0,
                p50_amount_cents: group[group.len() / 2].amount_cents,
                top_ids: group.iter().take(3).map(|r| r.id).collect(),
                regions: Regions::default(),
            };
            for r in group {
                g.total_amount_cents += r.amount_cents;
                g.total_quantity += r.quantity;
                g.revenue_cents += r.amount_cents * r.quantity;
                match r.region {
                    0 => g.regions.apac += 1,
                    1 => g.regions.emea += 1,
                    2 => g.regions.latam += 1,
                    _ => g.regions.na += 1,
                }
            }
            g.mean_amount_cents = g.total_amount_cents / g.count as i64;
            g
        })
        .collect();
    Transformed { size, groups }
}

/// Canonical JSON of CONTRACT.md section 3: serde_json already writes no
/// whitespace, struct field order, lowercase `\u00xx` escapes and no `\/`.
pub fn canonical_json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("contract shapes always serialise")
}

/// Formats Unix seconds as `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds), using
/// the days-from-civil inverse so no date library is needed for one format.
pub fn utc_timestamp(unix_secs: i64) -> String {
    let days = unix_secs.div_euclid(86_400);
    let secs = unix_secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift_from_seed_42_matches_the_contract() {
        let mut rng = Xorshift32::new(42);
        let first: Vec<u32> = (0..5).map(|_| rng.next()).collect();
        assert_eq!(
            first,
            [11355432, 2836018348, 476557059, 3648046016, 3759983556]
        );
    }

    #[test]
    fn pads_with_the_alphabet_and_never_truncates() {
        assert_eq!(
            pad_message("hello".into(), 70),
            "helloABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/A"
        );
        assert_eq!(pad_message("hello".into(), 3), "hello");
        assert_eq!(pad_message("héllo".into(), 8), "héllo".to_string() + "AB");
    }

    #[test]
    fn formats_timestamps_in_utc_with_a_z_suffix() {
        assert_eq!(utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_timestamp(1_704_067_260), "2024-01-01T00:01:00Z");
        assert_eq!(utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_timestamp(-1), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn canonical_json_escapes_only_what_the_contract_allows() {
        assert_eq!(
            canonical_json("a/<>&\u{1}\n\"\\é"),
            r#""a/<>&\u0001\n\"\\é""#
        );
    }
}
