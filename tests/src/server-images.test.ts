/**
 * Every reference server's image (scripts/docker/build-images.sh, built offline by scripts/test.sh)
 * runs under the docker driver as perflab runs it: 1 vCPU / 512 MB, read-only root, no capabilities,
 * host networking. Each must become healthy, list the contract's ten tools and answer echo. A server
 * whose image CI does not build must be named with the reason, rather than pass silently.
 */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadServerCatalog } from "@perflab/contracts/server-catalog";
import { waitForHealthy } from "@perflab/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDockerDriver,
  type DockerDriver,
  serverImageTag,
} from "../../apps/worker/src/drivers/docker.ts";
import { freePort, repoRoot } from "../../scripts/lib/services.ts";

/** The images scripts/test.sh builds; every other manifest must be named here with the reason. */
const BUILT_IN_CI = ["bun", "go", "java", "node", "python", "rust"];
const NOT_BUILT_IN_CI: Record<string, string> = {};

const catalog = loadServerCatalog(path.join(repoRoot, "servers"));
let driver: DockerDriver;

beforeAll(async () => {
  driver = createDockerDriver({ hostId: "perflab-image-tests" });
  await driver.docker.ping();
});

afterAll(async () => {
  await driver?.removeOrphans().catch(() => undefined);
});

it("accounts for every server: its image is smoke-tested here or the reason it is not is stated", () => {
  expect(catalog.map((s) => s.name).sort()).toEqual([...BUILT_IN_CI, ...Object.keys(NOT_BUILT_IN_CI)].sort());
});

describe.each(BUILT_IN_CI)("the %s image", (name) => {
  it("starts under the docker driver's limits, lists the ten tools and answers echo", async () => {
    const server = catalog.find((s) => s.name === name)!;
    const image = await serverImageTag(server);
    const port = await freePort();
    const started = await driver.start({
      server,
      cellId: `image-test-${name}-${port}`,
      port,
      env: {},
      limits: { cpus: 1, memoryMb: 512 },
    });
    try {
      expect(started.image).toBe(image);
      expect(started.imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
      const baseUrl = `http://127.0.0.1:${port}`;
      await waitForHealthy({
        baseUrl,
        mcpPath: server.mcpPath,
        timeoutMs: 60_000,
        exited: started.exited,
      }).catch((error: Error) => {
        throw new Error(`${name} did not become healthy: ${error.message}\n${started.logTail()}`);
      });
      const client = new Client({ name: "perflab-image-tests", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}${server.mcpPath}`)));
      try {
        const tools = await client.listTools();
        expect(tools.tools.map((t) => t.name).sort()).toEqual([...server.tools].sort());
        const echo = await client.callTool({ name: "echo", arguments: { message: "from a container" } });
        expect(echo.content).toEqual([{ type: "text", text: "from a container" }]);
      } finally {
        await client.close();
      }
      const resources = await started.resources();
      expect(resources?.rssBytes ?? 0).toBeGreaterThan(0);
    } finally {
      const exit = await started.stop(5_000);
      expect(exit.oomKilled).toBe(false);
    }
    const left = await driver.docker.listContainers({
      all: true,
      filters: { label: [`perflab.cell=image-test-${name}-${port}`] },
    });
    expect(left).toEqual([]);
  }, 120_000);
});
