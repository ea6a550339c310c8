import type { CellDto } from "./dto";
import { formatGib } from "./format";
import { vusLabel } from "./labels";

type HostLike = {
  hostId?: unknown;
  hostname?: unknown;
  name?: unknown;
  cpuModel?: unknown;
  cores?: unknown;
  memoryBytes?: unknown;
  kernel?: unknown;
};

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

/** A machine as a reader recognises it: name, CPU, cores, memory, kernel. */
function machineLabel(host: HostLike): string {
  // The worker's host id names the lab machine; the OS hostname beside it when they differ.
  const id = str(host.hostId);
  const hostname = str(host.hostname) ?? str(host.name);
  const name = id && hostname && id !== hostname ? `${id} on ${hostname}` : (id ?? hostname);
  const parts = [
    str(host.cpuModel),
    typeof host.cores === "number" ? `${host.cores} ${host.cores === 1 ? "core" : "cores"}` : null,
    typeof host.memoryBytes === "number" ? formatGib(host.memoryBytes) : null,
    str(host.kernel),
  ].filter(Boolean);
  return `${name ?? "unknown machine"}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

/** One value of an aspect the compared cells do not share, and the cells that had it. */
export type EnvironmentVariant = { label: string; cells: number; servers: string[] };

/** An aspect of where or how cells ran that differs between the cells a comparison puts side by side. */
export type EnvironmentDifference = {
  aspect: "machine" | "k6" | "limits" | "window" | "runtime";
  variants: EnvironmentVariant[];
};

/**
 * What makes two k6 builds the same for a comparison: the release, and whether it ran in a
 * container. The lab records `k6 version`'s first line ("k6 v1.8.1 (go1.26.8, linux/amd64)"), an
 * upload what perflab's output extension says ("1.8.1"): the same k6 in two spellings is no
 * difference. Two builds of one release with another Go toolchain are one k6 here too (the
 * machine aspect names the architecture). A string without a version in it is its own key.
 */
export function k6VersionKey(version: string): string {
  const release = /\bv?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\b/.exec(version)?.[1];
  if (!release) return version.trim();
  const container = /\[container [^\]]*\]/.exec(version)?.[0];
  return container ? `${release} ${container}` : release;
}

/**
 * What differs between the cells a comparison draws side by side (succeeded, with a summary): the
 * machine (several worker hosts share one queue, so a run's cells can land on different machines),
 * the k6 build, the limits the driver applied, and the runtime version one server ran under (Go
 * 1.26.8 in one run, 1.26.9 in the next: servers differ in runtime by design, one server should
 * not). Empty when they all ran alike, the normal case.
 */
export function environmentDifferences(cells: CellDto[]): EnvironmentDifference[] {
  const compared = cells.filter((c) => c.status === "succeeded" && c.summary !== null);
  const aspects: [EnvironmentDifference["aspect"], (c: CellDto) => { key: string; label: string } | null][] =
    [
      [
        "machine",
        (c) => {
          const host = (c.hostFingerprint ?? null) as HostLike | null;
          if (!host || typeof host !== "object") return null;
          // The label names the host id, hostname, CPU, cores, memory and kernel: two cells whose
          // labels agree ran on what a reader would call the same machine.
          const label = machineLabel(host);
          return { key: label, label };
        },
      ],
      ["k6", (c) => (c.k6Version ? { key: k6VersionKey(c.k6Version), label: c.k6Version } : null)],
      [
        "limits",
        (c) => {
          if (!c.limits)
            return c.driver === "docker" ? null : { key: "none", label: "no limits (a process)" };
          const { cpus, memoryMb, cpuset } = c.limits;
          const label = `${cpus} vCPU, ${memoryMb} MB${cpuset ? `, CPUs ${cpuset}` : ""}`;
          return { key: label, label };
        },
      ],
      [
        // What was measured: a p99 or a peak RSS over an hour is not one over 10 s, nor is a rate
        // kept with at most 20 VUs one kept with 500.
        "window",
        (c) => {
          const label = `${c.durationSeconds} s measured after ${c.warmupSeconds} s of warm-up${c.maxVus !== null ? `, at most ${vusLabel(c.maxVus)}` : ""}`;
          return { key: label, label };
        },
      ],
    ];
  const differences: EnvironmentDifference[] = [];
  for (const [aspect, read] of aspects) {
    const variants = new Map<string, { label: string; cells: number; servers: Set<string> }>();
    for (const cell of compared) {
      const value = read(cell);
      if (!value) continue;
      const variant = variants.get(value.key) ?? { label: value.label, cells: 0, servers: new Set<string>() };
      // Of the spellings that are one variant, the most detailed names it.
      if (value.label.length > variant.label.length) variant.label = value.label;
      variant.cells++;
      variant.servers.add(cell.serverName);
      variants.set(value.key, variant);
    }
    if (variants.size > 1) {
      differences.push({
        aspect,
        variants: [...variants.values()].map((v) => ({
          label: v.label,
          cells: v.cells,
          servers: [...v.servers],
        })),
      });
    }
  }
  const runtimes = runtimeDifferences(compared);
  if (runtimes) differences.push(runtimes);
  return differences;
}

/** The runtime versions of each server that ran under more than one, or null when none did. */
function runtimeDifferences(compared: CellDto[]): EnvironmentDifference | null {
  const byServer = new Map<string, Map<string, number>>();
  for (const cell of compared) {
    if (!cell.runtimeVersion) continue;
    const versions = byServer.get(cell.serverName) ?? new Map<string, number>();
    versions.set(cell.runtimeVersion, (versions.get(cell.runtimeVersion) ?? 0) + 1);
    byServer.set(cell.serverName, versions);
  }
  const variants = [...byServer]
    .filter(([, versions]) => versions.size > 1)
    .flatMap(([server, versions]) =>
      [...versions].map(([version, cells]) => ({
        label: `${server} on ${version}`,
        cells,
        servers: [server],
      })),
    );
  return variants.length > 0 ? { aspect: "runtime", variants } : null;
}
