/**
 * What sharing a large finished run costs (POST /api/v1/reports): createReport as the route calls it,
 * in this process, against a throwaway embedded Postgres holding one finished run of `cells` cells,
 * each with `seconds` stored per-second points (at ~200 tool calls a second) and a summary:
 *   create   the first share: wall time, each of its two transactions (the repeatable-read one that
 *            reads the run and its series into the snapshot, the one that compares and writes it),
 *            this process's RSS peak above where it began, and the snapshot's size (as JSON, and as
 *            Postgres stores it);
 *   again    the same share once more, which finds the first report (the dedup path: the whole
 *            snapshot built again and compared with the stored one).
 * Then whether either transaction would have outlived Prisma's default (5 s).
 *
 * The run is built quickly and like a lab matrix's: a few cells uploaded with createUpload, then
 * ingested with ingestUpload as the worker does (synthetic k6 outputs of bench/synthetic-output.ts,
 * different servers and load levels; their rollups too when longer than ROLLUP_MIN_SECONDS), then copied by SQL into one run (indexes 0…N−1, rounds
 * interleaved, each cell's times after the previous one's, run counts N of N). Their per-second
 * CPU and RSS, which an upload lacks and a lab cell has, are filled in, as are the cell's host
 * fingerprint and server build. Prints figures; asserts only that the report exists and holds every
 * cell.
 *
 *   pnpm --filter @perflab/bench report-share [cells=200] [seconds=600]
 */

import { createDb, type Db, Prisma } from "@perflab/db";
import { startTestPostgres } from "@perflab/db/testing";
import { createReport, createUpload } from "@perflab/web/testing";
import { ingestUpload } from "@perflab/worker/testing";
import { machine, watchRss } from "./lib.ts";
import { body, synthesize, WARMUP_SEC } from "./synthetic-output.ts";

const [cells = 200, seconds = 600] = process.argv.slice(2).map(Number);
if (!Number.isInteger(cells) || cells < 1 || !Number.isInteger(seconds) || seconds <= WARMUP_SEC + 1) {
  throw new Error(`usage: report-share [cells=200] [seconds=600] (seconds above ${WARMUP_SEC + 1})`);
}
const PER_SECOND = 200;
/** Prisma's interactive transactions' default timeout. */
const PRISMA_DEFAULT_TIMEOUT_MS = 5_000;
const SERVERS = ["go", "rust", "node", "python"];
const LOAD_LEVELS = [10, 50];
/** Distinct uploaded cells the run's cells are copies of. */
const TEMPLATES = Math.min(cells, SERVERS.length * LOAD_LEVELS.length);
/** A cell's slot in the run: its seconds, start-up and the cooldown after it. */
const SLOT_SEC = seconds + 5;
const MiB = 2 ** 20;
const fmt = (n: number) => n.toLocaleString("en-US");

const BUILDS: Record<string, object> = {
  go: { language: "go", runtime: "go", sdk: "mcp-go", runtimeVersion: "go1.26.8" },
  rust: { language: "rust", runtime: "native", sdk: "rmcp", runtimeVersion: null },
  node: {
    language: "typescript",
    runtime: "node",
    sdk: "@modelcontextprotocol/sdk",
    runtimeVersion: "v20.20.2",
  },
  python: { language: "python", runtime: "cpython", sdk: "mcp", runtimeVersion: "3.11.7" },
};
for (const [server, build] of Object.entries(BUILDS)) {
  BUILDS[server] = {
    ...build,
    command: `./bin/${server}-server`,
    variant: null,
    env: {},
    image: null,
    imageId: null,
  };
}

/** One finished run of `cells` cells of `seconds` stored seconds each; its id. */
async function buildRun(db: Db): Promise<string> {
  const templates: string[] = [];
  for (let k = 0; k < TEMPLATES; k++) {
    const { runId } = await createUpload({
      db,
      query: {
        server: SERVERS[k % SERVERS.length]!,
        scenario: "mcp-tool-call",
        durationSec: String(seconds - WARMUP_SEC),
        warmupSec: String(WARMUP_SEC),
        vus: String(LOAD_LEVELS[Math.floor(k / SERVERS.length) % LOAD_LEVELS.length]),
      },
      body: new Blob([body(synthesize(seconds, PER_SECOND, k + 1))]).stream(),
      origin: "http://127.0.0.1",
      enqueue: async () => undefined,
    });
    // What the worker does with the stored body, here in this process.
    const ingest = await ingestUpload({ db, runId });
    if (ingest.status !== "succeeded") throw new Error(`ingest: ${JSON.stringify(ingest)}`);
    templates.push(runId);
  }
  const runId = `cbenchrun${"0".repeat(16)}`;
  const rounds = Math.ceil(cells / TEMPLATES);
  const first = await db.run.findUniqueOrThrow({ where: { id: templates[0]! }, select: { spec: true } });
  const spec = {
    ...(first.spec as Record<string, unknown>),
    name: `bench: ${cells} cells`,
    servers: SERVERS.slice(0, Math.min(TEMPLATES, SERVERS.length)),
    loadLevels: LOAD_LEVELS.slice(0, Math.ceil(TEMPLATES / SERVERS.length)).map((vus) => ({ vus })),
    rounds,
    cooldownSec: 2,
    upload: undefined,
  };
  const anchorMs = Date.now() - (cells * SLOT_SEC + 60) * 1000;
  const host = {
    hostId: "bench",
    hostname: "bench",
    cpuModel: "Intel(R) Xeon(R) CPU @ 2.20GHz",
    cores: 2,
    kernel: "Linux 6.8.0",
    arch: "x64",
    memoryBytes: 8 * 2 ** 30,
  };
  const ids = Prisma.join(templates.map((id) => Prisma.sql`${id}::text`));
  // A plain table, not a temporary one: the pool may run each statement on another connection.
  await db.$executeRaw`
    CREATE TABLE bench_cells AS
    SELECT i AS index, 'cbenchcell' || lpad(i::text, 15, '0') AS id, c.id AS template_id, i / ${TEMPLATES}::int + 1 AS round,
      (to_timestamp(${anchorMs}::float8 / 1000) + make_interval(secs => i * ${SLOT_SEC}::int)) - c.started_at AS shift
    FROM generate_series(0, ${cells}::int - 1) AS i
    JOIN cells c ON c.run_id = (ARRAY[${ids}]::text[])[i % ${TEMPLATES}::int + 1]`;
  await db.$executeRaw`
    INSERT INTO runs
    SELECT copy.*
    FROM runs r,
    LATERAL jsonb_populate_record(NULL::runs, to_jsonb(r) || jsonb_build_object(
      'id', ${runId}::text, 'name', ${spec.name}::text, 'spec', ${JSON.stringify(spec)}::jsonb,
      'cells_total', ${cells}::int, 'cells_done', ${cells}::int, 'cells_failed', 0,
      'created_at', to_timestamp(${anchorMs}::float8 / 1000), 'started_at', to_timestamp(${anchorMs}::float8 / 1000),
      'finished_at', (SELECT max(c.finished_at + m.shift) FROM bench_cells m JOIN cells c ON c.id = m.template_id),
      'updated_at', now())) AS copy
    WHERE r.id = ${templates[0]!}::text`;
  await db.$executeRaw`
    INSERT INTO cells
    SELECT copy.*
    FROM bench_cells m JOIN cells c ON c.id = m.template_id,
    LATERAL jsonb_populate_record(NULL::cells, to_jsonb(c) || jsonb_build_object(
      'id', m.id, 'run_id', ${runId}::text, 'index', m.index, 'round', m.round,
      'created_at', to_timestamp(${anchorMs}::float8 / 1000), 'updated_at', c.finished_at + m.shift,
      'started_at', c.started_at + m.shift, 'healthy_at', c.started_at + m.shift + interval '300 ms',
      'measure_started_at', c.measure_started_at + m.shift, 'measure_ended_at', c.measure_ended_at + m.shift,
      'finished_at', c.finished_at + m.shift, 'port', 40000 + m.index, 'cold_start_ms', 150 + 300 * random(),
      'idle_rss_bytes', (8e6 + 4e7 * random())::bigint, 'attempts', 1,
      'host_fingerprint', ${JSON.stringify(host)}::jsonb,
      'server_build', ${JSON.stringify(BUILDS)}::jsonb -> c.server_name,
      'parallelism', jsonb_build_object('cores', 2))) AS copy ORDER BY m.index`;
  await db.$executeRaw`
    INSERT INTO cell_summaries
    SELECT copy.*
    FROM bench_cells m JOIN cell_summaries s ON s.cell_id = m.template_id,
    LATERAL jsonb_populate_record(NULL::cell_summaries, to_jsonb(s) || jsonb_build_object(
      'cell_id', m.id, 'window_start', s.window_start + m.shift, 'window_end', s.window_end + m.shift,
      'created_at', s.window_end + m.shift, 'cpu_avg_pct', 55 + 30 * random(), 'cpu_peak_pct', 90 + 10 * random(),
      'rss_avg_bytes', (3e7 + 5e7 * random())::bigint, 'rss_peak_bytes', (8e7 + 5e7 * random())::bigint,
      'k6_cpu_avg_pct', 20 + 10 * random(), 'k6_cpu_peak_pct', 30 + 10 * random(),
      'k6_rss_peak_bytes', (1e8 + 5e7 * random())::bigint, 'host_cpu_avg_pct', 80 + 15 * random())) AS copy ORDER BY m.index`;
  // What a lab cell's seconds have and an upload's lack: the server's CPU and RSS, k6's, the host's.
  await db.$executeRaw`
    INSERT INTO metric_points
    SELECT copy.*
    FROM bench_cells m JOIN metric_points p ON p.cell_id = m.template_id,
    LATERAL jsonb_populate_record(NULL::metric_points, to_jsonb(p) || jsonb_build_object(
      'cell_id', m.id, 't', p.t + m.shift, 'cpu_pct', 55 + 30 * random(),
      'rss_bytes', (3e7 + 5e7 * random())::bigint, 'k6_cpu_pct', 20 + 10 * random(),
      'k6_rss_bytes', (1e8 + 5e7 * random())::bigint, 'host_cpu_pct', 80 + 15 * random(),
      'net_rx_bytes', (6e4 + 1e4 * random())::bigint, 'net_tx_bytes', (7e4 + 1e4 * random())::bigint)) AS copy ORDER BY m.index, p.t`;
  await db.$executeRaw`
    INSERT INTO metric_rollups
    SELECT copy.*
    FROM bench_cells m JOIN metric_rollups u ON u.cell_id = m.template_id,
    LATERAL jsonb_populate_record(NULL::metric_rollups, to_jsonb(u) || jsonb_build_object(
      'cell_id', m.id, 't', u.t + m.shift, 'cpu_pct', 55 + 30 * random(),
      'rss_bytes', (3e7 + 5e7 * random())::bigint, 'k6_cpu_pct', 20 + 10 * random())) AS copy ORDER BY m.index, u.bucket_seconds, u.second`;
  await db.run.deleteMany({ where: { id: { in: templates } } });
  await db.$executeRaw`DROP TABLE bench_cells`;
  // As a database that has held the rows a while: visibility map set, statistics current.
  await db.$executeRawUnsafe("VACUUM ANALYZE");
  return runId;
}

/** `db`, with the time each of its `$transaction` calls took (acquiring a connection included). */
function timingTransactions(db: Db): { db: Db; ms: number[] } {
  const ms: number[] = [];
  const transaction = db.$transaction.bind(db) as (...args: unknown[]) => Promise<unknown>;
  const timed = new Proxy(db, {
    get(target, property) {
      if (property !== "$transaction") return Reflect.get(target, property);
      return async (...args: unknown[]) => {
        const t0 = performance.now();
        try {
          return await transaction(...args);
        } finally {
          ms.push(performance.now() - t0);
        }
      };
    },
  });
  return { db: timed, ms };
}

/** createReport as POST /api/v1/reports calls it (open access: no caller), timed. */
async function share(db: Db, runId: string) {
  const tx = timingTransactions(db);
  const rss = watchRss();
  const t0 = performance.now();
  try {
    const result = await createReport({
      db: tx.db,
      input: { runId, title: `bench: ${cells} cells` },
      origin: "http://127.0.0.1",
      caller: null,
    });
    const ms = performance.now() - t0;
    return { ...result, ms, txMs: tx.ms, before: rss.before, peak: rss.stop() };
  } finally {
    rss.stop();
  }
}

const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

console.log(`machine: ${machine()}`);
const pg = await startTestPostgres({ migrate: true });
const db = createDb(pg.url);
try {
  const b0 = performance.now();
  const runId = await buildRun(db);
  const stored = await db.metricPoint.count({ where: { cell: { runId } } });
  console.log(
    `run: ${fmt(cells)} cells × ${fmt(seconds)} s at ~${PER_SECOND} calls/s (${fmt(stored)} stored seconds, ` +
      `${TEMPLATES} uploads copied), built in ${secs(performance.now() - b0)}`,
  );

  const runs = [await share(db, runId)];
  runs.push(await share(db, runId));
  const slug = runs[0]!.report.slug;
  const [row] = await db.$queryRaw<
    { json_bytes: bigint; stored_bytes: number; cells: number; cell_ids: number; points: bigint }[]
  >`
    SELECT octet_length(snapshot::text) AS json_bytes, pg_column_size(snapshot) AS stored_bytes,
      jsonb_array_length(snapshot -> 'cells') AS cells, jsonb_array_length(selection -> 'cellIds') AS cell_ids,
      (SELECT sum(jsonb_array_length(v)) FROM jsonb_each(snapshot -> 'points') AS e(k, v)) AS points
    FROM reports WHERE slug = ${slug}`;
  if (!row) throw new Error(`report ${slug} was not stored`);
  if (row.cells !== cells || row.cell_ids !== cells) {
    throw new Error(`report ${slug} holds ${row.cells} cells (${row.cell_ids} ids), not ${cells}`);
  }
  // The bytes the API sends and Prisma wrote: compact JSON, not jsonb's text with its spaces.
  const report = await db.report.findUniqueOrThrow({ where: { slug }, select: { snapshot: true } });
  const jsonBytes = Buffer.byteLength(JSON.stringify(report.snapshot), "utf8");
  const reports = await db.report.count();

  runs.forEach((r, i) => {
    const label = i === 0 ? "create #1" : "create #2 (same share again)";
    console.log(
      `${label}: ${secs(r.ms)} (read tx ${secs(r.txMs[0] ?? Number.NaN)}, ` +
        `compare+write tx ${secs(r.txMs[1] ?? Number.NaN)}), RSS ${(r.before / MiB).toFixed(0)} → ` +
        `peak ${(r.peak / MiB).toFixed(0)} MiB (+${((r.peak - r.before) / MiB).toFixed(0)}), ` +
        `created: ${r.created}${i > 0 ? `, ${r.report.slug === slug ? "same" : "another"} slug` : ""}`,
    );
  });
  console.log(
    `snapshot: ${(jsonBytes / MiB).toFixed(1)} MiB as JSON (${fmt(jsonBytes)} bytes; jsonb's text ` +
      `${(Number(row.json_bytes) / MiB).toFixed(1)} MiB), ${(row.stored_bytes / MiB).toFixed(1)} MiB stored ` +
      `(TOAST-compressed); ${fmt(row.cells)} cells, ${fmt(Number(row.points))} points ` +
      `(${(jsonBytes / Number(row.points)).toFixed(0)} bytes a point all in); ${reports} report(s) in the table`,
  );
  const over = runs.flatMap((r, i) =>
    r.txMs.flatMap((ms, j) =>
      ms > PRISMA_DEFAULT_TIMEOUT_MS ? [`create #${i + 1}'s ${j === 0 ? "read" : "compare+write"} tx`] : [],
    ),
  );
  console.log(
    `Prisma's default timeout (${PRISMA_DEFAULT_TIMEOUT_MS / 1000} s): ` +
      (over.length ? `exceeded by ${over.join(", ")}` : "not exceeded by any transaction"),
  );
} finally {
  await db.$disconnect();
  await pg.stop();
}
