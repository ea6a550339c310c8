import { ZUploadProvenance } from "@perflab/contracts";

/**
 * Why a run's latency cannot be compared, or null: a run uploaded as a k6 summary has k6's
 * percentiles only, never merged with histograms, so said.
 */
export function unusableLatency(spec: object): string | null {
  const upload = ZUploadProvenance.safeParse((spec as { upload?: unknown }).upload);
  if (!upload.success || !upload.data.k6Summary) return null;
  return `uploaded as a k6 summary (${upload.data.format}): its percentiles are k6's own, not a histogram, so this comparison has no latency for it`;
}
