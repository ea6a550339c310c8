/**
 * A study 000 dimension as a chart for the docs: a run's figure per server against what grows (held
 * sessions, message size), log-log, beside the study's own figures (dashed, its ranges as bars), read
 * from the study's contract. Writes an SVG.
 *
 *   pnpm --filter @perflab/bench exec tsx study-chart.ts memory <runId> ../docs/evidence-memory.svg
 *   pnpm --filter @perflab/bench exec tsx study-chart.ts payload <runId> ../docs/evidence-payload.svg
 */
import { writeFileSync } from "node:fs";
import { type Figure, findStudy, type Study } from "@perflab/contracts";
import type { CellDto } from "@perflab/web/testing";
import { positionals, waitForEnd } from "./lab-api.ts";

type Params = { sessionsPerVu?: number; messageBytes?: number; arguments?: { pad_to_bytes?: number } };
type Point = { x: number; y: number; lo?: number; hi?: number };
/** `dash`: an SVG stroke-dasharray, null for a solid line. */
type Series = { name: string; colour: string; dash: string | null; hollow: boolean; points: Point[] };
type Kind = {
  study: string;
  xLabel: string;
  yLabel: string;
  xTick: (v: number) => string;
  /** What grows, from a workload's params (and the VUs it ran at). */
  x: (params: Params, vus: number) => number | null;
  /** The line a cell belongs to, beside its server. */
  line: (cell: CellDto) => string;
  y: (cell: CellDto) => number | null;
  published: (figures: Record<string, unknown>) => Figure | undefined;
};

const bytes = (v: number) => (v >= 2 ** 20 ? `${v / 2 ** 20} MiB` : `${v / 1024} KiB`);
const kinds: Record<string, Kind> = {
  memory: {
    study: "memory-per-session",
    xLabel: "MCP sessions held open",
    yLabel: "server RSS, MB (peak of the measured window)",
    xTick: (v) => v.toLocaleString("en-US"),
    x: (p, vus) => (p.sessionsPerVu ?? 1) * vus,
    line: () => "",
    y: (c) => (c.summary?.rssPeakBytes ? c.summary.rssPeakBytes / 2 ** 20 : null),
    published: (f) => f.ramMb as Figure | undefined,
  },
  payload: {
    study: "payload-sweep",
    xLabel: "message size (the response alone grows, or the request and the response with it)",
    yLabel: "tool calls per second",
    xTick: bytes,
    x: (p) => p.arguments?.pad_to_bytes ?? p.messageBytes ?? null,
    line: (c) => (c.scenario === "mcp-request-size" ? ", request grows" : ", response grows"),
    y: (c) => c.summary?.opsRps ?? null,
    published: (f) => f.rps as Figure | undefined,
  },
};

const COLOURS = ["#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#e6ab02"];

function labSeries(
  kind: Kind,
  cells: CellDto[],
  study: Study,
  colourOf: (server: string) => string,
): Series[] {
  const label = (server: string) => {
    const row = study.rows.find((r) => r.server === server);
    return row ? `${row.label} (${server})` : server;
  };
  const byLine = new Map<string, Series>();
  for (const c of cells) {
    const x = kind.x(c.params as Params, c.vus ?? 0);
    const y = kind.y(c);
    if (c.status !== "succeeded" || x === null || y === null) continue;
    const name = `${label(c.serverName)}${kind.line(c)}, perflab`;
    const dash = c.scenario === "mcp-request-size" ? "2 3" : null;
    const s = byLine.get(name) ?? { name, colour: colourOf(c.serverName), dash, hollow: false, points: [] };
    s.points.push({ x, y });
    byLine.set(name, s);
  }
  return [...byLine.values()];
}

function studySeries(kind: Kind, study: Study, colourOf: (server: string) => string): Series[] {
  const vus = Number(study.published.loadLevels[0]?.vus ?? 0);
  return study.rows.flatMap((row) => {
    const points = (row.published ?? []).flatMap((cell) => {
      const f = kind.published(cell.figures);
      const scenario = cell.scenario === undefined ? undefined : study.scenarios[cell.scenario];
      const x = scenario ? kind.x((scenario.params ?? {}) as Params, vus) : null;
      if (f === undefined || x === null) return [];
      return typeof f === "number" ? [{ x, y: f }] : [{ x, y: (f[0] + f[1]) / 2, lo: f[0], hi: f[1] }];
    });
    return points.length
      ? [
          {
            name: `${row.label}, study 000`,
            colour: colourOf(row.server ?? row.label),
            dash: "6 4",
            hollow: true,
            points,
          },
        ]
      : [];
  });
}

const W = 860;
const H = 440;
const M = { left: 70, right: 290, top: 20, bottom: 60 };
const log = (v: number) => Math.log10(v);
const decades = (lo: number, hi: number) => {
  const out: number[] = [];
  for (let e = Math.floor(log(lo)); e <= Math.ceil(log(hi)); e++) out.push(10 ** e);
  return out;
};

function render(kind: Kind, series: Series[]): string {
  const all = series.flatMap((s) => s.points);
  const xs = [...new Set(all.map((p) => p.x))].sort((a, b) => a - b);
  const ys = all.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]);
  const [y0, y1] = [10 ** Math.floor(log(Math.min(...ys))), 10 ** Math.ceil(log(Math.max(...ys)))];
  const [x0, x1] = [xs[0]!, xs[xs.length - 1]!];
  const px = (x: number) => M.left + ((log(x) - log(x0)) / (log(x1) - log(x0) || 1)) * (W - M.left - M.right);
  const py = (y: number) =>
    H - M.bottom - ((log(y) - log(y0)) / (log(y1) - log(y0))) * (H - M.top - M.bottom);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    // A title is the chart's text alternative for screen readers.
    `<title>${kind.yLabel} by ${kind.xLabel}: study 000 beside perflab</title>`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
  ];
  for (const y of decades(y0, y1).filter((v) => v >= y0 && v <= y1)) {
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/>`);
    out.push(
      `<text x="${M.left - 6}" y="${py(y) + 4}" text-anchor="end">${y.toLocaleString("en-US")}</text>`,
    );
  }
  for (const x of xs) {
    out.push(`<line x1="${px(x)}" x2="${px(x)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#eee"/>`);
    out.push(`<text x="${px(x)}" y="${H - M.bottom + 16}" text-anchor="middle">${kind.xTick(x)}</text>`);
  }
  out.push(
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 16}" text-anchor="middle">${kind.xLabel}</text>`,
  );
  out.push(
    `<text transform="translate(16 ${(H - M.bottom + M.top) / 2}) rotate(-90)" text-anchor="middle">${kind.yLabel} (log)</text>`,
  );
  series.forEach((s, i) => {
    const pts = s.points.toSorted((a, b) => a.x - b.x);
    const dash = s.dash ? ` stroke-dasharray="${s.dash}"` : "";
    out.push(
      `<polyline fill="none" stroke="${s.colour}" stroke-width="2"${dash} points="${pts.map((p) => `${px(p.x)},${py(p.y)}`).join(" ")}"/>`,
    );
    for (const p of pts) {
      out.push(
        `<circle cx="${px(p.x)}" cy="${py(p.y)}" r="3" fill="${s.hollow ? "white" : s.colour}" stroke="${s.colour}"/>`,
      );
      if (p.lo !== undefined && p.hi !== undefined)
        out.push(
          `<line x1="${px(p.x)}" x2="${px(p.x)}" y1="${py(p.lo)}" y2="${py(p.hi)}" stroke="${s.colour}" stroke-width="1"/>`,
        );
    }
    const ly = M.top + 10 + i * 20;
    out.push(
      `<line x1="${W - M.right + 12}" x2="${W - M.right + 40}" y1="${ly}" y2="${ly}" stroke="${s.colour}" stroke-width="2"${dash}/>`,
    );
    out.push(`<text x="${W - M.right + 46}" y="${ly + 4}">${s.name}</text>`);
  });
  out.push("</svg>");
  return out.join("\n");
}

const [kindName, runId, outPath] = positionals;
const kind = kinds[kindName ?? ""];
if (!kind || !runId || !outPath) throw new Error("usage: study-chart.ts memory|payload <runId> <out.svg>");
const study = findStudy(kind.study)!;
const { cells } = await waitForEnd(runId);
// A runtime keeps its colour on both sides: the study's row and the lab's server that runs it.
const servers = [
  ...new Set([...study.rows.map((r) => r.server ?? r.label), ...cells.map((c) => c.serverName)]),
];
const colourOf = (server: string) => COLOURS[servers.indexOf(server) % COLOURS.length]!;
writeFileSync(
  outPath,
  render(kind, [...studySeries(kind, study, colourOf), ...labSeries(kind, cells, study, colourOf)]),
);
console.log(`wrote ${outPath}`);
