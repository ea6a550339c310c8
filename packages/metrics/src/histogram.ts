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

export function decodeHistogram(base64: string): Histogram {
  return hdr.decodeFromCompressedBase64(base64, 64, false);
}

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
