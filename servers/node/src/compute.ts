// Pure work of the deterministic tools (CONTRACT.md section 4). Every TEXT is
// JSON.stringify of object literals written in the contract's key order: that
// is already canonical JSON (no whitespace, lowercase \u00xx, no \/ or HTML escaping).

export const MAX_ECHO_BYTES = 1 << 20;

const PAD_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Appends alphabet bytes until the UTF-8 length is padTo; a longer message is never truncated. */
export function padMessage(message: string, padTo: number): string {
  const missing = padTo - Buffer.byteLength(message, "utf8");
  if (missing <= 0) return message;
  // The alphabet is ASCII, so characters and bytes count the same.
  return message + PAD_ALPHABET.repeat(Math.ceil(missing / PAD_ALPHABET.length)).slice(0, missing);
}

/** Deliberately the naive double recursion: the CPU-bound workload must not be memoised. */
export function fibonacci(n: number): number {
  return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
}

/** Marsaglia's 13/17/5 xorshift on unsigned 32-bit integers. */
export class Xorshift32 {
  constructor(private state: number) {}

  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    this.state = x;
    return x;
  }
}

const CATEGORIES = ["books", "electronics", "garden", "grocery", "health", "home", "sports", "toys"];
const REGIONS = ["apac", "emea", "latam", "na"] as const;

interface SizeRecord {
  id: number;
  category: string;
  region: (typeof REGIONS)[number];
  amount_cents: number;
  quantity: number;
}

/** Generates, sorts, groups and aggregates `size` records (CONTRACT.md 4.4) and returns TEXT. */
export function transformData(size: number): string {
  const rng = new Xorshift32(42);
  const records: SizeRecord[] = new Array(size);
  for (let i = 0; i < size; i++) {
    const category = CATEGORIES[rng.next() % 8] as string;
    const region = REGIONS[rng.next() % 4] as SizeRecord["region"];
    const amount_cents = rng.next() % 100000;
    const quantity = 1 + (rng.next() % 20);
    records[i] = { id: i, category, region, amount_cents, quantity };
  }
  // Category names are ASCII, so < compares them by byte order.
  records.sort((a, b) => {
    if (a.category !== b.category) return a.category < b.category ? -1 : 1;
    if (a.amount_cents !== b.amount_cents) return b.amount_cents - a.amount_cents;
    return a.id - b.id;
  });

  const groups = [];
  for (let start = 0; start < records.length; ) {
    const first = records[start] as SizeRecord;
    let end = start;
    let total = 0;
    let quantity = 0;
    let revenue = 0;
    const regions = { apac: 0, emea: 0, latam: 0, na: 0 };
    const topIds: number[] = [];
    for (; end < records.length; end++) {
      const r = records[end] as SizeRecord;
      if (r.category !== first.category) break;
      total += r.amount_cents;
      quantity += r.quantity;
      revenue += r.amount_cents * r.quantity;
      regions[r.region]++;
      if (topIds.length < 3) topIds.push(r.id);
    }
    const count = end - start;
    groups.push({
      category: first.category,
      count,
      total_amount_cents: total,
      total_quantity: quantity,
      revenue_cents: revenue,
      min_amount_cents: (records[end - 1] as SizeRecord).amount_cents,
      max_amount_cents: first.amount_cents,
      mean_amount_cents: Math.floor(total / count),
      p50_amount_cents: (records[start + Math.floor(count / 2)] as SizeRecord).amount_cents,
      top_ids: topIds,
      regions,
    });
    start = end;
  }
  return JSON.stringify({ size, groups });
}
