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
    avgMs: ms(histogram.mean),
    minMs: ms(histogram.minNonZeroValue),
    maxMs: ms(histogram.maxValue),
    p50: ms(histogram.getValueAtPercentile(50)),
    p90: ms(histogram.getValueAtPercentile(90)),
    p95: ms(histogram.getValueAtPercentile(95)),
    p99: ms(histogram.getValueAtPercentile(99)),
    p999: ms(histogram.getValueAtPercentile(99.9)),
  };
}
