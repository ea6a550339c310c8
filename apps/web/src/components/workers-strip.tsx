"use client";

import type { TWorkerPresence } from "@perflab/contracts";
import Link from "next/link";
import { link } from "./ui";
import { useWorkers } from "./use-workers";
import { QueueNotice } from "./workers-notice";

/** "k6 v1.8.1 (go1.26.8, linux/amd64)" → "k6 v1.8.1". */
const k6Short = (version: string) => /v\d+\.\d+\.\d+\S*/.exec(version)?.[0] ?? version;

function WorkerItem({ worker }: { worker: TWorkerPresence }) {
  const busy = worker.cell !== null;
  return (
    <li className="flex flex-wrap items-center gap-x-2 gap-y-0.5" data-testid={`worker-${worker.id}`}>
      <span
        aria-hidden
        className={`inline-block size-2 rounded-full ${busy ? "bg-sky-500" : "bg-emerald-500"}`}
      />
      <span className="font-medium">{worker.hostId}</span>
      <span className="text-zinc-500 dark:text-zinc-400">pid {worker.pid}</span>
      <span>
        {busy ? (
          <Link href={`/runs/${worker.cell!.runId}`} className={link}>
            running a cell
          </Link>
        ) : (
          "idle"
        )}
      </span>
      <span className="text-zinc-500 dark:text-zinc-400">
        · k6 {k6Short(worker.k6.version)} ·{" "}
        {worker.docker.reachable ? (
          `Docker ${worker.docker.version}${worker.docker.engine === "remote" ? " (remote)" : ""}`
        ) : (
          <span title={worker.docker.error ?? undefined}>no Docker engine</span>
        )}
      </span>
    </li>
  );
}

/** The running workers under the list of runs: who takes queued cells, and what each is doing. */
export function WorkersStrip() {
  const state = useWorkers();
  if (state === null) return null;
  if ("error" in state || state.workers.length === 0) return <QueueNotice state={state} className="mb-4" />;
  return (
    <section aria-label="Workers" className="mb-4 text-sm" data-testid="workers">
      <h2 className="sr-only">Workers</h2>
      <ul className="space-y-1">
        {state.workers.map((w) => (
          <WorkerItem key={w.id} worker={w} />
        ))}
      </ul>
    </section>
  );
}
