import { type TUploadProvenance, ZUploadProvenance } from "@perflab/contracts";

const FORMAT_LABELS: Record<TUploadProvenance["format"], string> = {
  perflab: "perflab's k6 output",
  "k6-json": "k6 --out json",
  "k6-summary-export": "k6 --summary-export",
  "k6-handle-summary": "k6 handleSummary data",
};

/** k6's own latency figures of a summary upload, under k6's names (never the lab's HDR percentiles). */
function K6Figures({ k6Summary }: { k6Summary: NonNullable<TUploadProvenance["k6Summary"]> }) {
  const metric = k6Summary.latencyMetric;
  const values = metric ? k6Summary.metrics[metric]?.values : undefined;
  if (!metric || !values) return null;
  const figures = Object.entries(values).filter(
    ([k]) => ["avg", "min", "med", "max"].includes(k) || k.startsWith("p("),
  );
  return (
    <p data-testid="upload-k6-figures">
      k6's own figures for <code className="font-mono text-xs">{metric}</code>:{" "}
      {figures.map(([k, v]) => `${k}=${v.toFixed(2)} ms`).join(", ")}
    </p>
  );
}

/**
 * Where an uploaded run's figures came from and what that source lacks (spec.upload), so its page
 * and its report never pass a k6 summary's p(95) off as the lab's own measurement.
 */
export function UploadSource({ upload }: { upload: unknown }) {
  const parsed = ZUploadProvenance.safeParse(upload);
  if (!parsed.success) return null;
  const { format, compressed, lacks, k6Summary } = parsed.data;
  return (
    <div className="space-y-1 text-sm text-zinc-600 dark:text-zinc-300" data-testid="upload-source">
      <p>
        Uploaded as {FORMAT_LABELS[format]}
        {compressed ? " (gzip)" : ""}
        {lacks.length > 0 ? `. What it lacks: ${lacks.join("; ")}.` : "."}
      </p>
      {k6Summary && <K6Figures k6Summary={k6Summary} />}
    </div>
  );
}
