const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1, minimumFractionDigits: 1 });
const upToTwoDecimals = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
const twoDecimals = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2, minimumFractionDigits: 2 });
// UTC and a fixed locale, so the server's render and the browser's hydration print the same text.
const dateTime = new Intl.DateTimeFormat("en-GB", {
  dateStyle: "medium",
  timeStyle: "short",
  timeZone: "UTC",
});

const DASH = "—";

export const formatInt = (value: number | null | undefined) => (value == null ? DASH : integer.format(value));
export const formatRate = (value: number | null | undefined) =>
  value == null ? DASH : oneDecimal.format(value);
export const formatRatio = (value: number | null | undefined) =>
  value == null ? DASH : twoDecimals.format(value);

/** A chart axis's tick, as every chart prints it: grouped, no needless decimals ("6,000", "2.5"). */
export const formatTick = (value: number) => upToTwoDecimals.format(value);

/** A measured value without its unit (a chart's tooltip): two decimals below 10, else one ("6,000.0"). */
export const formatMeasure = (value: number | null | undefined) =>
  value == null ? DASH : value < 10 ? formatRatio(value) : formatRate(value);

/** Latency in milliseconds, with more precision where sub-millisecond differences matter. */
export function formatMs(value: number | null | undefined): string {
  if (value == null) return DASH;
  if (value < 10) return `${twoDecimals.format(value)} ms`;
  if (value < 1000) return `${oneDecimal.format(value)} ms`;
  return `${twoDecimals.format(value / 1000)} s`;
}

export const formatPct = (value: number | null | undefined) =>
  value == null ? DASH : `${oneDecimal.format(value)} %`;

export const bytesToMb = (bytes: number | null | undefined) => (bytes == null ? null : bytes / (1024 * 1024));
export const formatMb = (bytes: number | null | undefined) =>
  bytes == null ? DASH : `${oneDecimal.format(bytesToMb(bytes)!)} MB`;

/** A machine's memory, as every page names it: "24.0 GiB". */
export const formatGib = (bytes: number | null | undefined) =>
  bytes == null ? DASH : `${oneDecimal.format(bytes / 2 ** 30)} GiB`;

/** Small memory amounts (one session's share), in KiB-based kB as MB here are MiB-based. */
export const formatKb = (bytes: number | null | undefined) =>
  bytes == null ? DASH : `${oneDecimal.format(bytes / 1024)} kB`;

export const formatDateTime = (iso: string | null | undefined) =>
  iso ? `${dateTime.format(new Date(iso))} UTC` : DASH;

/**
 * A second of a time axis that spans `span` seconds, as its ticks and tooltip print it: seconds
 * ("45 s", "1,200 s") up to five minutes, then the clock's m:ss ("12:30 min"), past an hour h:mm
 * ("14:00 h"), so a soak of a day reads as hours rather than "43,200 s".
 */
export function formatSecond(second: number, span: number): string {
  if (span <= 300) return `${upToTwoDecimals.format(second)} s`;
  const sign = second < 0 ? "-" : "";
  const total = Math.round(Math.abs(second));
  const pad = (n: number) => String(n).padStart(2, "0");
  if (span <= 3600) return `${sign}${Math.floor(total / 60)}:${pad(total % 60)} min`;
  const minutes = Math.round(total / 60);
  return `${sign}${Math.floor(minutes / 60)}:${pad(minutes % 60)} h`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  if (m < 60) return s ? `${m} min ${s} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}
