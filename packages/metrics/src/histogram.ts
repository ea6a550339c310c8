import { inflateSync } from "node:zlib";
import * as hdr from "hdr-histogram-js";

export type Histogram = hdr.Histogram;

/** Latencies are recorded in microseconds, 1 µs to 1 h, 3 significant digits (same as perflab's k6 output). */
export function createLatencyHistogram(): Histogram {
  return hdr.build({
    bitBucketSize: 64,
    autoResize: true,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

/** V2 compressed encoding: a cookie, the deflated length, then a zlib stream of the V2 encoding. */
const V2_COMPRESSED_COOKIE_BASE = 0x1c849304;
/**
 * What an encoded histogram may inflate to. perflab's latency histograms (1 µs to 1 h, 3 digits)
 * hold about 23,000 counts, at most 9 bytes each: 200 KiB at worst. A histogram that inflates
 * further is not one of them, and must not make the lab allocate what its author chose (a zlib
 * stream of zeros inflates a thousandfold).
 */
export const MAX_INFLATED_HISTOGRAM_BYTES = 1024 * 1024;
/** The widest histogram decoded: values up to ten hours in µs, at most 3 significant digits. */
const MAX_TRACKABLE_VALUE = 36_000_000_000;
const MAX_SIGNIFICANT_DIGITS = 3;

/**
 * Decodes one compressed-V2 base64 histogram (what perflab's k6 output and encodeHistogram write),
 * bounded: the zlib stream may inflate to at most MAX_INFLATED_HISTOGRAM_BYTES, and the header may
 * ask for at most 3 significant digits and values up to ten hours, so an upload cannot make the lab
 * allocate gigabytes. Throws with a reason otherwise.
 */
export function decodeHistogram(base64: string): Histogram {
  const data = Buffer.from(base64.trim(), "base64");
  if (data.length < 8) throw new Error("is too short to be an encoded histogram");
  if ((data.readInt32BE(0) & ~0xf0) !== V2_COMPRESSED_COOKIE_BASE) {
    throw new Error("is not a compressed V2 HdrHistogram encoding");
  }
  const deflatedLength = data.readInt32BE(4);
  let inflated: Buffer;
  try {
    inflated = inflateSync(data.subarray(8, 8 + Math.max(0, deflatedLength)), {
      maxOutputLength: MAX_INFLATED_HISTOGRAM_BYTES,
    });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new Error(
        `inflates past ${MAX_INFLATED_HISTOGRAM_BYTES} bytes, more than a latency histogram holds`,
      );
    }
    throw new Error(`does not inflate: ${(error as Error).message}`);
  }
  // V2 header: cookie, payload length, normalizing offset, significant digits (int32 each), then
  // lowest and highest trackable value (int64).
  if (inflated.length < 40) throw new Error("is too short to be an encoded histogram");
  const digits = inflated.readInt32BE(12);
  const highest = Number(inflated.readBigInt64BE(24));
  if (digits < 0 || digits > MAX_SIGNIFICANT_DIGITS) {
    throw new Error(
      `has ${digits} significant digits; perflab's histograms have at most ${MAX_SIGNIFICANT_DIGITS}`,
    );
  }
  if (!(highest >= 2 && highest <= MAX_TRACKABLE_VALUE)) {
    throw new Error(
      `tracks values up to ${highest}; perflab's histograms track at most ${MAX_TRACKABLE_VALUE} µs`,
    );
  }
  return (hdr.JsHistogram as unknown as { decode: HistogramDecoder }).decode(inflated, 64, 0);
}

type HistogramDecoder = (
  data: Uint8Array,
  bitBucketSize: number,
  minBarForHighestTrackableValue: number,
) => Histogram;

export function encodeHistogram(histogram: Histogram): string {
  return hdr.encodeIntoCompressedBase64(histogram);
}

/** Merges encoded histograms; percentiles are taken from the merge, never averaged. */
export function mergeEncoded(encoded: Iterable<string>): Histogram {
  const merged = createLatencyHistogram();
  for (const item of encoded) merged.add(decodeHistogram(item));
  return merged;
}

export type LatencyStats = {
  count: number;
  avgMs: number | null;
  minMs: number | null;
  maxMs: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  p999: number | null;
};

const ms = (us: number) => us / 1000;

/**
 * The histogram's mean, the number hdr-histogram-js's `mean` gives (each bucket's count at the
 * bucket's median value, summed in index order), read straight from the counts array. The library
 * walks its recorded-values iterator instead, which cost a third of aggregating each second of an
 * uploaded k6 output (bench/upload.ts).
 */
export function histogramMean(histogram: Histogram): number {
  const total = histogram.totalCount;
  if (total === 0) return 0;
  if (!(histogram instanceof hdr.JsHistogram)) return histogram.mean;
  let sum = 0;
  let seen = 0;
  for (let i = 0; i < histogram.countsArrayLength && seen < total; i++) {
    const count = histogram.getCountAtIndex(i);
    if (count > 0) {
      sum += histogram.medianEquivalentValue(histogram.valueFromIndex(i)) * count;
      seen += count;
    }
  }
  return sum / total;
}

export function latencyStats(histogram: Histogram): LatencyStats {
  const count = histogram.totalCount;
  if (count === 0) {
    return {
      count,
      avgMs: null,
      minMs: null,
      maxMs: null,
      p50: null,
      p90: null,
      p95: null,
      p99: null,
      p999: null,
    };
  }
  return {
    count,
    avgMs: ms(histogramMean(histogram)),
    minMs: ms(histogram.minNonZeroValue),
    maxMs: ms(histogram.maxValue),
    p50: ms(histogram.getValueAtPercentile(50)),
    p90: ms(histogram.getValueAtPercentile(90)),
    p95: ms(histogram.getValueAtPercentile(95)),
    p99: ms(histogram.getValueAtPercentile(99)),
    p999: ms(histogram.getValueAtPercentile(99.9)),
  };
}
