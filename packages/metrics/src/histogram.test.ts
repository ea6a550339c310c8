import { deflateSync, inflateSync } from "node:zlib";
import * as hdr from "hdr-histogram-js";
import { describe, expect, it } from "vitest";
import type { Histogram } from "./histogram.ts";
import {
  addBuckets,
  createLatencyHistogram,
  decodeBuckets,
  decodeHistogram,
  encodeHistogram,
  histogramMean,
  latencyStats,
  latencyStdDevMs,
  mergeEncoded,
} from "./histogram.ts";

/** Deterministic pseudo-random latencies with a long tail, in microseconds. */
function samples(seed: number, n: number): number[] {
  let x = seed;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const u = x / 2147483648;
    out.push(Math.max(1, Math.round(200 + 50_000 * u ** 6)));
  }
  return out;
}

function exactPercentile(sorted: number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** A latency histogram of `n` of those latencies. */
function recorded(seed: number, n: number): Histogram {
  const h = createLatencyHistogram();
  for (const v of samples(seed, n)) h.recordValue(v);
  return h;
}

describe("histogram", () => {
  it("merges histograms before taking percentiles: equal to percentiles of the concatenated samples", () => {
    const parts = [samples(1, 5000), samples(2, 300), samples(3, 12000)];
    const encoded = parts.map((part) => {
      const h = createLatencyHistogram();
      for (const v of part) h.recordValue(v);
      return encodeHistogram(h);
    });
    const merged = mergeEncoded(encoded);
    const all = parts.flat().sort((a, b) => a - b);
    expect(merged.totalCount).toBe(all.length);
    for (const p of [50, 90, 95, 99, 99.9]) {
      const exact = exactPercentile(all, p);
      // 3 significant digits: relative error below 0.1 %.
      expect(Math.abs(merged.getValueAtPercentile(p) - exact) / exact).toBeLessThan(0.001);
    }
  });

  it("shows that averaging per-part p99 would be wrong for skewed parts", () => {
    const quiet = samples(4, 10_000).map(() => 1000);
    const burst = samples(5, 100).map(() => 90_000);
    const encoded = [quiet, burst].map((part) => {
      const h = createLatencyHistogram();
      for (const v of part) h.recordValue(v);
      return encodeHistogram(h);
    });
    const mergedP99 = mergeEncoded(encoded).getValueAtPercentile(99);
    const averagedP99 = (1000 + 90_000) / 2;
    expect(Math.abs(mergedP99 - 1000) / 1000).toBeLessThan(0.001);
    expect(averagedP99).toBeGreaterThan(mergedP99 * 40);
  });

  it("round-trips through the compressed base64 encoding", () => {
    const h = createLatencyHistogram();
    for (const v of samples(6, 1000)) h.recordValue(v);
    const back = decodeHistogram(encodeHistogram(h));
    expect(back.totalCount).toBe(1000);
    expect(back.getValueAtPercentile(99)).toBe(h.getValueAtPercentile(99));
  });

  it("reports milliseconds and nulls for an empty histogram", () => {
    expect(latencyStats(createLatencyHistogram()).p99).toBeNull();
    const h = createLatencyHistogram();
    h.recordValue(2500);
    const stats = latencyStats(h);
    expect(stats.count).toBe(1);
    expect(stats.p50).toBeCloseTo(2.5, 2);
  });

  it("takes the same mean as hdr-histogram-js, for recorded, merged and decoded histograms", () => {
    const cases: [string, Histogram][] = [];
    for (const [seed, n] of [
      [11, 1],
      [12, 7],
      [13, 1000],
      [14, 50_000],
    ] as const) {
      const h = recorded(seed, n);
      cases.push([`${n} samples`, h], [`${n} samples, decoded`, decodeHistogram(encodeHistogram(h))]);
    }
    const wide = createLatencyHistogram();
    for (const v of [1, 2, 2047, 2048, 2049, 65_535, 1_000_000, 3_599_999_999])
      wide.recordValueWithCount(v, 3);
    cases.push(["values across every bucket size", wide]);
    cases.push([
      "merged",
      mergeEncoded(
        [samples(21, 400), samples(22, 9000)].map((part) => {
          const h = createLatencyHistogram();
          for (const v of part) h.recordValue(v);
          return encodeHistogram(h);
        }),
      ),
    ]);
    for (const [name, h] of cases) {
      // The counts-array path, not the fallback to the library's own mean.
      expect(h, name).toBeInstanceOf(hdr.JsHistogram);
      expect(h.mean, name).toBeGreaterThan(0);
      expect(histogramMean(h), name).toBe(h.mean);
    }
    expect(histogramMean(createLatencyHistogram())).toBe(0);
    expect(latencyStats(wide).avgMs).toBe(wide.mean / 1000);
  });
});

describe("decoding untrusted histograms", () => {
  /** A compressed-V2 envelope around any payload, as an uploader could write one. */
  function envelope(payload: Buffer): string {
    const deflated = deflateSync(payload);
    const head = Buffer.alloc(8);
    head.writeInt32BE(0x1c849304 | 0x10, 0);
    head.writeInt32BE(deflated.length, 4);
    return Buffer.concat([head, deflated]).toString("base64");
  }

  /** The inflated V2 encoding of a real histogram, to tamper with. */
  function inflatedOf(h: Histogram): Buffer {
    const data = Buffer.from(encodeHistogram(h), "base64");
    return inflateSync(data.subarray(8, 8 + data.readInt32BE(4)));
  }

  it("refuses a zlib bomb before inflating it (a few KiB that would inflate to 64 MiB)", () => {
    const bomb = envelope(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(200_000);
    expect(() => decodeHistogram(bomb)).toThrow(/inflates past 1048576 bytes/);
  });

  it("refuses headers that would allocate huge counts arrays", () => {
    const h = createLatencyHistogram();
    h.recordValue(1000);
    const digits = inflatedOf(h);
    digits.writeInt32BE(5, 12);
    expect(() => decodeHistogram(envelope(digits))).toThrow(/5 significant digits/);
    const range = inflatedOf(h);
    range.writeBigInt64BE(2n ** 62n, 24);
    expect(() => decodeHistogram(envelope(range))).toThrow(/tracks values up to/);
  });

  /** A real histogram's inflated encoding with one header field changed, as an uploader could. */
  function tampered(edit: (inflated: Buffer) => void): string {
    const h = createLatencyHistogram();
    for (const v of [900, 1000, 1100, 25_000]) h.recordValue(v);
    const inflated = inflatedOf(h);
    edit(inflated);
    return envelope(inflated);
  }

  it("refuses a payload length past the bytes present, at once (it made the decoder loop for minutes)", () => {
    for (const length of [2 ** 28, 0x7fffffff, -5]) {
      const started = performance.now();
      expect(() => decodeHistogram(tampered((b) => b.writeInt32BE(length, 4)))).toThrow(
        /claims a payload of -?\d+ bytes where \d+ are present/,
      );
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it("refuses a lowest trackable value other than the lab's 1 µs (10^9 made every percentile 74 hours)", () => {
    const encoded = tampered((b) => b.writeBigInt64BE(1_000_000_000n, 16));
    expect(() => decodeHistogram(encoded)).toThrow(/lowest trackable value of 1000000000/);
    expect(() => decodeHistogram(tampered((b) => b.writeBigInt64BE(0n, 16)))).toThrow(
      /lowest trackable value of 0/,
    );
  });

  it("refuses an inflated cookie that is not V2", () => {
    expect(() => decodeHistogram(tampered((b) => b.writeInt32BE(0x0c501f15, 0)))).toThrow(/not a V2/);
  });

  /** An empty histogram's header around any counts payload. */
  function withPayload(payload: number[]): string {
    const head = Buffer.from(inflatedOf(createLatencyHistogram()).subarray(0, 40));
    head.writeInt32BE(payload.length, 4);
    return envelope(Buffer.concat([head, Buffer.from(payload)]));
  }

  it("refuses counts that do not add up: past the last bucket, cut short, or beyond 2^53", () => {
    // A run of 2^20 empty buckets (ZigZag of -2^20, LEB128), then a count of 1.
    const zigzag = 2 ** 21 - 1;
    const run = [(zigzag & 0x7f) | 0x80, ((zigzag >> 7) & 0x7f) | 0x80, zigzag >> 14];
    expect(() => decodeHistogram(withPayload([...run, 2]))).toThrow(
      /more buckets or counts|past the \d+ buckets/,
    );
    // A run that fits the scan's bound but not this header's counts array.
    const small = 100_000 * 2 - 1;
    const beyond = [(small & 0x7f) | 0x80, ((small >> 7) & 0x7f) | 0x80, small >> 14, 2];
    expect(() => decodeHistogram(withPayload(beyond))).toThrow(/past the \d+ buckets its header allows/);
    expect(() => decodeHistogram(withPayload([0x80, 0x80]))).toThrow(/ends inside a count/);
    expect(() =>
      decodeHistogram(withPayload([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])),
    ).toThrow(/count past 2\^53/);
    // The same header with an honest payload decodes: one count of 3 at the first bucket.
    expect(decodeHistogram(withPayload([6])).totalCount).toBe(3);
  });

  it("refuses what is not a compressed V2 histogram, naming why", () => {
    expect(() => decodeHistogram("")).toThrow(/too short/);
    expect(() => decodeHistogram(Buffer.alloc(16).toString("base64"))).toThrow(/not a compressed V2/);
    expect(() => decodeHistogram(envelope(Buffer.alloc(10)))).toThrow(/too short/);
  });

  it("refuses as buckets whatever it refuses as a histogram, for the same reason", () => {
    const bad = [
      "",
      Buffer.alloc(16).toString("base64"),
      envelope(Buffer.alloc(64 * 1024 * 1024)),
      tampered((b) => b.writeInt32BE(5, 12)),
      tampered((b) => b.writeBigInt64BE(2n ** 62n, 24)),
      tampered((b) => b.writeInt32BE(0x7fffffff, 4)),
      tampered((b) => b.writeBigInt64BE(1_000_000_000n, 16)),
      tampered((b) => b.writeInt32BE(0x0c501f15, 0)),
      withPayload([(199_999 & 0x7f) | 0x80, ((199_999 >> 7) & 0x7f) | 0x80, 199_999 >> 14, 2]),
      withPayload([0x80, 0x80]),
      withPayload([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
    ];
    for (const [i, encoded] of bad.entries()) {
      const reason = (() => {
        try {
          decodeHistogram(encoded);
        } catch (error) {
          return (error as Error).message;
        }
        throw new Error(`input ${i} decoded`);
      })();
      expect(() => decodeBuckets(encoded), `input ${i}`).toThrow(reason);
    }
    expect(decodeBuckets(withPayload([6]))).toMatchObject({ total: 3, indexes: [0], counts: [3] });
  });

  it("decodes what hdr-histogram-js itself encodes, as its own decoder does", () => {
    const h = createLatencyHistogram();
    for (const v of samples(9, 5000)) h.recordValue(v);
    const encoded = hdr.encodeIntoCompressedBase64(h);
    const ours = decodeHistogram(encoded);
    const theirs = hdr.decodeFromCompressedBase64(encoded, 64, false);
    expect(ours.totalCount).toBe(theirs.totalCount);
    for (const p of [50, 90, 99, 99.9, 100]) {
      expect(ours.getValueAtPercentile(p)).toBe(theirs.getValueAtPercentile(p));
    }
  });
});

describe("latencyStdDevMs", () => {
  it("gives the standard deviation of known latencies: 1, 1, 1.2 and 1.2 ms deviate 0.1 ms from their mean", () => {
    // Under 2,048 µs each microsecond is a bucket of its own, so the values are exact.
    const h = createLatencyHistogram();
    for (const us of [1000, 1000, 1200, 1200]) h.recordValue(us);
    expect(latencyStdDevMs(h)).toBe(0.1);
    // The same after the encoding the summary stores and the merge a comparison makes.
    expect(latencyStdDevMs(mergeEncoded([encodeHistogram(h)]))).toBe(0.1);
  });

  it("is 0 for one repeated value and null for no latency at all", () => {
    const same = createLatencyHistogram();
    for (let i = 0; i < 10; i++) same.recordValue(5000);
    expect(latencyStdDevMs(same)).toBe(0);
    expect(latencyStdDevMs(createLatencyHistogram())).toBeNull();
  });

  it("merges histograms before taking the deviation, within the histogram's precision of the exact one", () => {
    const values = [...samples(1, 5_000), ...samples(2, 5_000)];
    const merged = mergeEncoded(
      [values.slice(0, 5_000), values.slice(5_000)].map((part) => {
        const h = createLatencyHistogram();
        for (const v of part) h.recordValue(v);
        return encodeHistogram(h);
      }),
    );
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const exact = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length) / 1000;
    expect(Math.abs(latencyStdDevMs(merged)! - exact) / exact).toBeLessThan(0.001);
  });
});

describe("decodeBuckets and addBuckets", () => {
  /** Every count and the tracked minimum, maximum and total of a histogram. */
  function state(h: Histogram) {
    const js = h as hdr.JsHistogram;
    const counts: [number, number][] = [];
    for (let i = 0; i < js.countsArrayLength; i++) {
      const n = js.getCountAtIndex(i);
      if (n > 0) counts.push([i, n]);
    }
    // An empty histogram's minimum is a sentinel, which differs between built and decoded ones.
    const min = h.totalCount > 0 ? h.minNonZeroValue : null;
    return { counts, total: h.totalCount, min, max: h.maxValue, stats: latencyStats(h) };
  }

  it("adds exactly what adding the decoded histogram adds: counts, minimum, maximum and percentiles", () => {
    const wider = hdr.build({
      bitBucketSize: 64,
      lowestDiscernibleValue: 1,
      highestTrackableValue: 36_000_000_000,
      numberOfSignificantValueDigits: 3,
    });
    for (const v of [0, 3, 2047, 2048, 70_000, 3_599_999_999, 20_000_000_000])
      wider.recordValueWithCount(v, 2);
    const sources: [string, Histogram][] = [["values past an hour, a wider layout", wider]];
    for (const [seed, n] of [
      [31, 1],
      [32, 50],
      [33, 20_000],
    ] as const) {
      sources.push([`${n} samples`, recorded(seed, n)]);
    }
    sources.push(["empty", createLatencyHistogram()]);
    for (const [name, source] of sources) {
      const encoded = encodeHistogram(source);
      const viaHistogram = createLatencyHistogram();
      const viaBuckets = createLatencyHistogram();
      for (const v of samples(40, 300)) {
        viaHistogram.recordValue(v);
        viaBuckets.recordValue(v);
      }
      viaHistogram.add(decodeHistogram(encoded));
      addBuckets(viaBuckets, decodeBuckets(encoded));
      if (source === wider) {
        // The library adds another layout value by value, its maximum at the bucket's lowest value;
        // the buckets' maximum is the bucket's highest, as a same-layout add and a decode give. Same bucket.
        const [ours, theirs] = [state(viaBuckets), state(viaHistogram)];
        const bucketOf = (h: Histogram, v: number) => (h as hdr.JsHistogram).lowestEquivalentValue(v);
        expect(bucketOf(viaBuckets, ours.max)).toBe(bucketOf(viaHistogram, theirs.max));
        expect({ ...ours, max: 0, stats: { ...ours.stats, maxMs: 0 } }, name).toEqual({
          ...theirs,
          max: 0,
          stats: { ...theirs.stats, maxMs: 0 },
        });
      } else expect(state(viaBuckets), name).toEqual(state(viaHistogram));
      expect(decodeBuckets(encoded).total, name).toBe(source.totalCount);
      // Into an empty histogram: the minimum and maximum are the decoded ones alone.
      const alone = createLatencyHistogram();
      addBuckets(alone, decodeBuckets(encoded));
      expect(state(alone), name).toEqual(state(decodeHistogram(encoded)));
    }
  });
});
