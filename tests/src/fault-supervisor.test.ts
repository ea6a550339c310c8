/**
 * The quick-start stack (scripts/stack.ts) when one of its processes dies (kill -9, an OOM kill):
 * the worker or the web app is started again after a backoff and the log says so, while Postgres,
 * Redis and the other keep running; what the dead worker started (the cell's server and k6, the
 * fixture Redis and API) stops at once, and the cell it ran ends `failed` saying why.
 */
import { readdir, readFile } from "node:fs/promises";
import { OWNER_ENV, parseOwner } from "@perflab/worker/testing";
import { afterAll, describe, expect, it } from "vitest";
import { until } from "./helpers.ts";
import { aliveOnes, type Recorded, servicesOf, stackEnv, started, startStack } from "./stack-process.ts";

afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill("SIGTERM");
});

type Proc = { pid: number; command: string };

/** A live process's command name and parent, or null once it has exited (a zombie has too). */
async function procOf(pid: string): Promise<(Proc & { ppid: number }) | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const close = stat.lastIndexOf(")");
  const [state, ppid] = stat.slice(close + 2).split(" ");
  if (!stat || state === "Z") return null;
  return { pid: Number(pid), command: stat.slice(stat.indexOf("(") + 1, close), ppid: Number(ppid) };
}

/**
 * What the worker `pid` started that still runs: its children, and whatever carries its owner
 * marker (its servers, in groups of their own). The fixture Redis is found as a child only: it
 * rewrites its environment for its process title.
 */
async function startedBy(pid: number): Promise<Proc[]> {
  const found: Proc[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const proc = await procOf(name);
    if (!proc) continue;
    const environ = await readFile(`/proc/${name}/environ`, "utf8").catch(() => "");
    const marker = environ.split("\0").find((kv) => kv.startsWith(`${OWNER_ENV}=`));
    const owner = parseOwner(marker?.slice(OWNER_ENV.length + 1) ?? "");
    if (proc.ppid === pid || owner?.pid === pid) found.push({ pid: proc.pid, command: proc.command });
  }
  return found;
}

const pidOf = (services: Recorded[], name: string) => services.find((s) => s.name === name)!.pid;

type CellDto = { id: string; status: string; error: string | null };

describe("the quick-start stack when a process dies", () => {
  it("restarts a worker killed mid-cell: the rest runs on, what it started stops, its cell fails saying why", async () => {
    // A host id of its own: the suite's workers neither sweep for this stack's worker nor it for theirs.
    const env = { ...(await stackEnv("fault-worker")), PERFLAB_HOST_ID: `fault-${process.pid}` };
    const dataDir = env.PERFLAB_DATA_DIR;
    const web = `http://127.0.0.1:${env.PERFLAB_PORT}`;
    const stack = startStack(env);
    await stack.running;
    const first = servicesOf(dataDir);
    const worker = pidOf(first, "worker");

    const created = await fetch(`${web}/api/v1/matrices`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        servers: ["go"],
        // A tool with backends: the worker starts the fixtures (their Redis and API) for it.
        scenarios: [{ id: "mcp-tool-call", params: { tool: "get_user_cart", arguments: { user_id: 1 } } }],
        loadLevels: [{ vus: 1 }],
        durationSec: 60,
        warmupSec: 0,
      }),
    });
    expect(created.status).toBe(201);
    const { runId } = (await created.json()) as { runId: string };
    // The cell is under load: the fixtures, the Go server and k6 all run, started by the worker.
    const left = await until(
      async () => {
        const owned = await startedBy(worker);
        const commands = new Set(owned.map((p) => p.command));
        return ["redis-server", "fixture-api", "server", "k6"].every((c) => commands.has(c)) && owned;
      },
      90_000,
      "the worker's fixtures, server and k6",
    ).catch(async (error: Error) => {
      const run = await (await fetch(`${web}/api/v1/runs/${runId}`)).text();
      throw new Error(`${error.message}; the run: ${run.slice(0, 1500)}\n${stack.output().slice(-3000)}`);
    });

    process.kill(worker, "SIGKILL");
    await until(
      async () => stack.output().includes("worker exited (SIGKILL); starting it again in 1 s"),
      10_000,
      "the log",
    );
    await until(
      async () => (await Promise.all(left.map((p) => procOf(String(p.pid))))).every((p) => p === null),
      10_000,
      "the dead worker's processes to stop",
    );
    expect(await startedBy(worker)).toEqual([]);
    const restarted = await until(
      async () => {
        const now = pidOf(servicesOf(dataDir), "worker");
        return now !== worker && aliveOnes(servicesOf(dataDir)).includes("worker") && now;
      },
      30_000,
      "a new worker",
    );
    expect(stack.output()).toMatch(new RegExp(`worker is running again \\(pid ${restarted}\\)`));
    // Nothing else stopped: the stack, Postgres, Redis and the web app still answer.
    expect(stack.child.exitCode).toBeNull();
    expect(aliveOnes(first).filter((name) => name !== "worker")).toEqual(["redis", "postgres", "web"]);
    expect((await fetch(`${web}/api/v1/runs`)).status).toBe(200);

    // The killed worker's job comes back to the new one, which fails its cell naming the crash.
    const cell = await until(
      async () => {
        const run = (await (await fetch(`${web}/api/v1/runs/${runId}`)).json()) as { cells: CellDto[] };
        return run.cells[0]?.status === "failed" && run.cells[0];
      },
      150_000,
      "the killed worker's cell to fail",
    );
    expect(cell.error).toMatch(/worker/);

    // The web app killed too: started again on its port, and the worker it did not touch runs on.
    const webPid = pidOf(servicesOf(dataDir), "web");
    process.kill(webPid, "SIGKILL");
    await until(
      async () => stack.output().includes("web exited (SIGKILL); starting it again in 1 s"),
      10_000,
      "the log",
    );
    await until(
      async () => (await fetch(`${web}/api/v1/runs`).catch(() => null))?.status === 200,
      90_000,
      "the web app to answer again",
    );
    const last = servicesOf(dataDir);
    expect(pidOf(last, "web")).not.toBe(webPid);
    expect(pidOf(last, "worker")).toBe(restarted);
    expect(aliveOnes(last)).toEqual(["redis", "postgres", "worker", "web"]);

    // SIGTERM still stops all of it, the restarted processes and what they started included.
    stack.child.kill("SIGTERM");
    expect(await stack.exited).toBe(0);
    expect(aliveOnes(last)).toEqual([]);
    expect(await startedBy(restarted)).toEqual([]);
  }, 420_000);
});
