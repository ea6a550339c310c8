import { formatGib } from "@/lib/format";
import { cellLabel } from "@/lib/labels";
import { limitsLabel, type RequestedLimits } from "@/lib/limits";
import type { ReportCellDto } from "@/lib/report-dto";
import { scrollPanel, table, tbody, td, th } from "./ui";

type Host = {
  hostname?: unknown;
  cpuModel?: unknown;
  cores?: unknown;
  memoryBytes?: unknown;
  kernel?: unknown;
  arch?: unknown;
};
type Build = {
  language?: unknown;
  runtime?: unknown;
  sdk?: { name?: unknown; version?: unknown } | null;
  env?: Record<string, unknown> | null;
  container?: { writableRoot?: unknown; capabilities?: unknown } | null;
};

const text = (value: unknown) => (typeof value === "string" && value ? value : null);
const count = (value: unknown) => (typeof value === "number" ? value : null);

function runtimeOf(build: Build | null): string {
  if (!build) return "—";
  const sdk = build.sdk && text(build.sdk.name) ? `${build.sdk.name} ${text(build.sdk.version) ?? ""}` : null;
  return [text(build.runtime), sdk?.trim()].filter(Boolean).join(" · ") || "—";
}

/** The environment the manifest or a variant set (MCP_STATELESS=1 …), or null. */
function envOf(build: Build | null): string | null {
  const env = build?.env && typeof build.env === "object" ? Object.entries(build.env) : [];
  return env.length > 0 ? env.map(([k, v]) => `${k}=${String(v)}`).join(" ") : null;
}

/** What the docker driver relaxed for the server's runtime (its manifest's `container`), or null. */
function containerOf(build: Build | null): string | null {
  const container = build?.container;
  if (!container || typeof container !== "object") return null;
  const capabilities = Array.isArray(container.capabilities) ? container.capabilities.map(String) : [];
  const parts = [
    container.writableRoot === true ? "writable root" : null,
    ...capabilities.map((c) => `+${c}`),
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(" ") : null;
}

/** The lines under a cell's server build: the runtime that answered, its container, its environment. */
function buildDetails(cell: ReportCellDto, build: Build | null) {
  return [
    {
      id: "runtime",
      className: "text-xs text-zinc-500",
      text: cell.runtimeVersion && `ran ${cell.runtimeVersion}`,
    },
    {
      id: "container",
      className: "font-mono text-xs text-amber-700 dark:text-amber-400",
      text: containerOf(build),
    },
    { id: "env", className: "font-mono text-xs text-zinc-500", text: envOf(build) },
  ].filter((detail): detail is { id: string; className: string; text: string } => Boolean(detail.text));
}

function parallelismOf(value: unknown): string {
  if (value == null) return "—";
  if (typeof value !== "object") return String(value);
  return Object.entries(value as Record<string, unknown>)
    .map(([key, v]) => `${key} ${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(", ");
}

/** Where and how each cell ran: what a reader needs before trusting a comparison. */
export function CellEnvironment({
  cells,
  requestedLimits,
}: {
  cells: ReportCellDto[];
  /** The run's requested limits, shown as such for a cell whose driver did not apply them. */
  requestedLimits?: RequestedLimits;
}) {
  return (
    <section aria-label="Environment" className="space-y-3">
      <h2 className="text-lg font-semibold">Environment</h2>
      <div className={scrollPanel}>
        <table className={table} data-testid="environment-table">
          <thead>
            <tr>
              <th className={th}>Cell</th>
              <th className={th}>Driver</th>
              <th className={th}>Limits</th>
              <th className={th}>Server build</th>
              <th className={th}>Image</th>
              <th className={th}>Parallelism</th>
              <th className={th}>k6</th>
              <th className={th}>Host</th>
              <th className={th}>Cores</th>
              <th className={th}>Memory</th>
              <th className={th}>Kernel</th>
            </tr>
          </thead>
          <tbody className={tbody}>
            {cells.map((cell) => {
              const host = (cell.hostFingerprint ?? null) as Host | null;
              const build = (cell.serverBuild ?? null) as Build | null;
              return (
                <tr key={cell.id} data-testid={`environment-row-${cell.index}`}>
                  <td className={`${td} font-medium`}>{cellLabel(cell)}</td>
                  <td className={td}>{cell.driver}</td>
                  <td className={td} data-testid={`environment-limits-${cell.index}`}>
                    {limitsLabel(cell, requestedLimits)?.text ?? "none"}
                  </td>
                  <td className={td}>
                    <div>{runtimeOf(build)}</div>
                    {buildDetails(cell, build).map((detail) => (
                      <div
                        key={detail.id}
                        className={detail.className}
                        data-testid={`environment-${detail.id}-${cell.index}`}
                      >
                        {detail.text}
                      </div>
                    ))}
                  </td>
                  <td className={`${td} font-mono text-xs`}>
                    {cell.image ? (
                      <>
                        <div>{cell.image}</div>
                        {cell.imageId && (
                          <div className="text-zinc-500" title={cell.imageId}>
                            {cell.imageId.replace(/^sha256:/, "").slice(0, 12)}
                          </div>
                        )}
                      </>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td className={`${td} text-xs`}>{parallelismOf(cell.parallelism)}</td>
                  <td className={td} data-testid={`environment-k6-${cell.index}`}>
                    {cell.k6Version ?? "—"}
                  </td>
                  <td className={td} data-testid={`environment-host-${cell.index}`}>
                    {text(host?.hostname) && <div className="font-medium">{text(host?.hostname)}</div>}
                    <div className="text-xs text-zinc-500">{text(host?.cpuModel) ?? "—"}</div>
                  </td>
                  <td className={td} data-testid={`environment-cores-${cell.index}`}>
                    {count(host?.cores) ?? "—"}
                  </td>
                  <td className={td}>
                    {count(host?.memoryBytes) === null ? "—" : formatGib(count(host?.memoryBytes))}
                  </td>
                  <td className={`${td} text-xs`}>
                    {[text(host?.kernel), text(host?.arch)].filter(Boolean).join(" · ") || "—"}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
