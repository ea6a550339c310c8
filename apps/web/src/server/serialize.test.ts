import { ZCellDto } from "@perflab/contracts";
import type { Cell } from "@perflab/db";
import { describe, expect, it } from "vitest";
import { appliedLimits, serializeCell } from "./serialize";

const at = new Date("2025-01-01T00:00:00.000Z");
const cell = (over: Partial<Cell>): Cell => ({
  id: "c1",
  runId: "r1",
  index: 0,
  serverDefinitionId: null,
  serverName: "go",
  scenario: "mcp-tool-call",
  loadLevel: { vus: 2 },
  params: { tool: "echo", arguments: {} },
  round: 1,
  durationSeconds: 10,
  warmupSeconds: 0,
  status: "queued",
  driver: "docker",
  hostFingerprint: null,
  k6Version: null,
  serverBuild: null,
  limits: null,
  parallelism: null,
  port: null,
  attempts: 0,
  startedAt: null,
  healthyAt: null,
  coldStartMs: null,
  idleRssBytes: null,
  measureStartedAt: null,
  measureEndedAt: null,
  finishedAt: null,
  exitCode: null,
  exitSignal: null,
  oomKilled: false,
  k6Saturated: false,
  error: null,
  logTail: null,
  createdAt: at,
  updatedAt: at,
  ...over,
});

describe("a cell's limits in the API", () => {
  it("are the enforced ones once the worker recorded them with the server's port", () => {
    const started = cell({ status: "running", port: 40123, limits: { cpus: 1, memoryMb: 512 } });
    expect(appliedLimits(started)).toEqual({ cpus: 1, memoryMb: 512, cpuset: null });
    const pinned = cell({ port: 40123, limits: { cpus: 2, memoryMb: 2048, cpuset: "0-1" } });
    expect(serializeCell(pinned).limits).toEqual({ cpus: 2, memoryMb: 2048, cpuset: "0-1" });
  });

  it("are null while they are only the request: a cell not started, or failed before its server started", () => {
    // As create-run writes them: the spec's request, memory only.
    const requested = { memoryMb: 512 };
    for (const status of ["queued", "running", "failed", "cancelled"] as const) {
      const dto = serializeCell(cell({ status, limits: requested }));
      expect(dto.limits).toBeNull();
      // The DTO conforms to the contract (a limits object without cpus did not).
      expect(ZCellDto.safeParse(dto).success).toBe(true);
    }
    // Even a complete request is not reported as enforced before the server started.
    expect(appliedLimits(cell({ limits: { cpus: 1, memoryMb: 512 } }))).toBeNull();
  });

  it("are null for a plain process, and for a malformed record", () => {
    expect(appliedLimits(cell({ driver: "local", port: 40123, limits: null }))).toBeNull();
    expect(appliedLimits(cell({ port: 40123, limits: { memoryMb: 512 } }))).toBeNull();
    const dto = serializeCell(cell({ port: 40123, limits: { cpus: 1, memoryMb: 512 }, status: "succeeded" }));
    expect(ZCellDto.safeParse(dto).success).toBe(true);
  });
});
