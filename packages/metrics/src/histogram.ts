import { inflateSync } from "node:zlib";
import type { TLatencyStats } from "@perflab/contracts";
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
  const { inflated, header, payload } = inflateChecked(base64);
  const counted = scanCounts(payload);
  checkEnd(counted.endIndex, layoutOf(header));
  const decoded = (hdr.JsHistogram as unknown as { decode: HistogramDecoder }).decode(inflated, 64, 0);
  if (decoded.totalCount !== counted.total) {
    throw new Error(`counts add up to ${decoded.totalCount} once decoded, not the ${counted.total} encoded`);
  }
  return decoded;
}

/**
 * An encoded histogram's non-empty buckets, in index order, and their counts; `layout` maps an
 * index to its values (a histogram of the encoding's range and digits, shared).
 */
export type HistogramBuckets = {
  total: number;
  indexes: number[];
  counts: number[];
  layout: hdr.JsHistogram;
};

/**
 * What decodeHistogram reads, checked the same way, as the non-empty buckets alone. Adding them
 * (addBuckets) costs a step per latency bucket seen, where decoding builds a counts array of every
 * bucket from 1 µs to an hour (23,552, 184 KiB) and adding it walks them all: the worker does this
 * for every group of every second k6 writes, while the cell is measured.
 */
export function decodeBuckets(base64: string): HistogramBuckets {
  const { header, payload } = inflateChecked(base64);
  const layout = layoutOf(header);
  const indexes: number[] = [];
  const counts: number[] = [];
  const counted = scanCounts(payload, (index, count) => {
    indexes.push(index);
    counts.push(count);
  });
  checkEnd(counted.endIndex, layout);
  return { total: counted.total, indexes, counts, layout };
}

/**
 * Adds decoded buckets to a histogram: the same counts, minimum and maximum as adding the decoded
 * histogram (the minimum where the first non-zero bucket starts, the maximum where the last ends).
 */
export function addBuckets(target: Histogram, buckets: HistogramBuckets): void {
  const { indexes, counts, layout } = buckets;
  const last = indexes.at(-1);
  if (last === undefined) return;
  if (
    target instanceof hdr.JsHistogram &&
    target.subBucketCount === layout.subBucketCount &&
    target.unitMagnitude === layout.unitMagnitude &&
    last < target.countsArrayLength
  ) {
    // The same layout: counts go straight to their index.
    for (let i = 0; i < indexes.length; i++) target.addToCountAtIndex(indexes[i]!, counts[i]!);
    target.addToTotalCount(buckets.total);
  } else {
    for (let i = 0; i < indexes.length; i++) {
      target.recordValueWithCount(layout.valueFromIndex(indexes[i]!), counts[i]!);
    }
  }
  // No counts: these move the minimum and maximum, as adding a decoded histogram does.
  const first = indexes[0] === 0 ? indexes[1] : indexes[0];
  if (first !== undefined) target.recordValueWithCount(layout.valueFromIndex(first), 0);
  target.recordValueWithCount(layout.highestEquivalentValue(layout.valueFromIndex(last)), 0);
}

type V2Header = { digits: number; highest: number };

function inflateChecked(base64: string): { inflated: Buffer; header: V2Header; payload: Buffer } {
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
  const { header, payloadLength } = checkV2Header(inflated);
  return { inflated, header, payload: inflated.subarray(V2_HEADER_BYTES, V2_HEADER_BYTES + payloadLength) };
}

/** A histogram of each header's range and digits, kept to map bucket indexes to values (a handful at most). */
const layouts = new Map<string, hdr.JsHistogram>();

function layoutOf(header: V2Header): hdr.JsHistogram {
  const key = `${header.digits}:${header.highest}`;
  let layout = layouts.get(key);
  if (!layout) {
    if (layouts.size >= 16) layouts.clear();
    layout = hdr.build({
      bitBucketSize: 64,
      lowestDiscernibleValue: 1,
      highestTrackableValue: header.highest,
      numberOfSignificantValueDigits: header.digits as 1 | 2 | 3,
    }) as hdr.JsHistogram;
    layouts.set(key, layout);
  }
  return layout;
}

function checkEnd(endIndex: number, layout: hdr.JsHistogram): void {
  const buckets = layout.countsArrayLength;
  if (endIndex > buckets) throw new Error(`has counts past the ${buckets} buckets its header allows`);
}

/** The V2 cookie of the inflated encoding (word size in bits 4–7). */
const V2_COOKIE_BASE = 0x1c849303;
const V2_HEADER_BYTES = 40;

/**
 * Checks an inflated V2 encoding before the library decodes it: the library trusts the header's
 * payload length (and loops that many times past the end of a short buffer) and its lowest value
 * (10^9 µs made every percentile 74 hours). Header: cookie, payload length, normalizing offset,
 * significant digits (int32 each), lowest and highest trackable value (int64), conversion ratio.
 */
function checkV2Header(inflated: Buffer): { header: V2Header; payloadLength: number } {
  if (inflated.length < V2_HEADER_BYTES) throw new Error("is too short to be an encoded histogram");
  if ((inflated.readInt32BE(0) & ~0xf0) !== V2_COOKIE_BASE) {
    throw new Error("is not a V2 HdrHistogram encoding once inflated");
  }
  const payloadLength = inflated.readInt32BE(4);
  const present = inflated.length - V2_HEADER_BYTES;
  if (payloadLength < 0 || payloadLength > present) {
    throw new Error(`claims a payload of ${payloadLength} bytes where ${present} are present`);
  }
  const digits = inflated.readInt32BE(12);
  if (digits < 0 || digits > MAX_SIGNIFICANT_DIGITS) {
    throw new Error(
      `has ${digits} significant digits; perflab's histograms have at most ${MAX_SIGNIFICANT_DIGITS}`,
    );
  }
  const lowest = inflated.readBigInt64BE(16);
  if (lowest !== 1n) {
    throw new Error(`has a lowest trackable value of ${lowest}; perflab's histograms start at 1 µs`);
  }
  const highest = Number(inflated.readBigInt64BE(24));
  if (!(highest >= 2 && highest <= MAX_TRACKABLE_VALUE)) {
    throw new Error(
      `tracks values up to ${highest}; perflab's histograms track at most ${MAX_TRACKABLE_VALUE} µs`,
    );
  }
  return { header: { digits, highest }, payloadLength };
}

/**
 * Walks the payload's ZigZag LEB128 counts (a negative value is a run of empty buckets) as the
 * library will, so a count or a run that cannot be one is refused before it is stored; `onBucket`
 * hears of every non-empty bucket, in index order.
 */
function scanCounts(
  payload: Buffer,
  onBucket?: (index: number, count: number) => void,
): { total: number; endIndex: number } {
  let total = 0;
  let index = 0;
  let at = 0;
  while (at < payload.length) {
    let raw = 0;
    let shift = 1;
    // Up to 9 bytes, 7 bits each, as the library's ZigZagEncoding.decode reads them.
    for (let byte = 0; byte < 9; byte++) {
      if (at >= payload.length) throw new Error("ends inside a count");
      const b = payload[at++] as number;
      raw += (b & 0x7f) * shift;
      shift *= 128;
      if ((b & 0x80) === 0) break;
    }
    if (raw > Number.MAX_SAFE_INTEGER) throw new Error("has a count past 2^53");
    const value = raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
    if (value < 0) index += -value;
    else {
      if (value > 0) onBucket?.(index, value);
      total += value;
      index += 1;
    }
    if (index > MAX_COUNTS_INDEX || total > Number.MAX_SAFE_INTEGER) {
      throw new Error("has more buckets or counts than a latency histogram holds");
    }
  }
  return { total, endIndex: index };
}

/** No histogram of the decodable range and digits has this many buckets. */
const MAX_COUNTS_INDEX = 1 << 20;

type HistogramDecoder = (
  data: Uint8Array,
  bitBucketSize: number,
  minBarForHighestTrackableValue: number,
) => Histogram & { countsArrayLength: number };

export function encodeHistogram(histogram: Histogram): string {
  return hdr.encodeIntoCompressedBase64(histogram);
}

/** Merges encoded histograms; percentiles are taken from the merge, never averaged. */
export function mergeEncoded(encoded: Iterable<string>): Histogram {
  const merged = createLatencyHistogram();
  for (const item of encoded) addBuckets(merged, decodeBuckets(item));
  return merged;
}

/** Latency over a histogram, in milliseconds: ZLatencyStats in @perflab/contracts. */
export type LatencyStats = TLatencyStats;

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

/**
 * The recorded latencies' standard deviation (of the whole population), in the histogram's unit:
 * each bucket's count at its median value, as histogramMean; two passes, since a sum of squares
 * of microsecond values would cancel away a small spread around a large mean.
 */
export function histogramStdDev(histogram: Histogram): number {
  const total = histogram.totalCount;
  if (total === 0) return 0;
  if (!(histogram instanceof hdr.JsHistogram)) return histogram.stdDeviation;
  const mean = histogramMean(histogram);
  let squares = 0;
  let seen = 0;
  for (let i = 0; i < histogram.countsArrayLength && seen < total; i++) {
    const count = histogram.getCountAtIndex(i);
    if (count > 0) {
      const deviation = histogram.medianEquivalentValue(histogram.valueFromIndex(i)) - mean;
      squares += deviation * deviation * count;
      seen += count;
    }
  }
  return Math.sqrt(squares / total);
}

/** A histogram's standard deviation in milliseconds; null when it holds no latency. */
export function latencyStdDevMs(histogram: Histogram): number | null {
  return histogram.totalCount > 0 ? ms(histogramStdDev(histogram)) : null;
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
