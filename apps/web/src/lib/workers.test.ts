import type { TWorkerPresence } from "@perflab/contracts";
import { describe, expect, it } from "vitest";
import { dockerNotice, queueNotice } from "./workers";

const worker = (docker: Partial<TWorkerPresence["docker"]> = {}): TWorkerPresence => ({
  id: "lab:41:0a1b2c3d",
  hostId: "lab",
  pid: 41,
  startedAt: "2026-11-25T01:00:00.000Z",
  k6: { version: "v1.4.2", runner: "local" },
  docker: {
    engine: "local",
    reachable: true,
    version: "28.2.2",
    error: null,
    checkedAt: "2026-11-25T01:00:00.000Z",
    ...docker,
  },
  cell: null,
});

describe("what the app says of the workers", () => {
  it("says queued cells wait when no worker runs, and nothing while one does or before it knows", () => {
    expect(queueNotice({ workers: [] })).toMatch(/No worker is running/);
    expect(queueNotice({ workers: [worker()] })).toBeNull();
    expect(queueNotice(null)).toBeNull();
    expect(queueNotice({ error: "Redis did not answer" })).toMatch(/Redis did not answer/);
  });

  it("warns of docker only when docker is chosen and no running worker reaches an engine, saying why", () => {
    const down = worker({ reachable: false, version: null, error: "connect ENOENT /var/run/docker.sock" });
    expect(dockerNotice({ workers: [down] }, "docker")).toMatch(
      /No running worker reaches a Docker engine \(connect ENOENT \/var\/run\/docker\.sock\)/,
    );
    expect(dockerNotice({ workers: [down] }, "local")).toBeNull();
    expect(dockerNotice({ workers: [down, worker()] }, "docker")).toBeNull();
    // No worker at all is the queue notice's to say.
    expect(dockerNotice({ workers: [] }, "docker")).toBeNull();
    expect(dockerNotice(null, "docker")).toBeNull();
  });
});
