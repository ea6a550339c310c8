/**
 * Every server's image runs under the docker driver as perflab runs it: 1 vCPU / 512 MB, read-only
 * root, no capabilities, host networking. Each must become healthy, list its manifest's tools and
 * answer echo (a REST-only server, without MCP: its /rest/time). The set is the catalog's: a folder
 * with a perflab.json and a Dockerfile is built by scripts/test.sh (scripts/docker/build-images.sh
 * with no names), one that registers a prebuilt `image` must have it on the engine. A server the
 * docker driver could not run fails here by name.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadServerCatalog, serverImageTag } from "@perflab/catalog";
import { createDockerDriver, type DockerDriver, waitForHealthy } from "@perflab/worker/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, repoRoot } from "../../scripts/lib/services.ts";

const catalog = loadServerCatalog(path.join(repoRoot, "servers"));
const hasDockerfile = (dir: string) => existsSync(path.join(dir, "Dockerfile"));
/** Every server the docker driver can run: built from its Dockerfile, or registered as an image. */
const WITH_IMAGE = catalog.filter((s) => s.image || hasDockerfile(s.dir)).map((s) => s.name);
let driver: DockerDriver;

beforeAll(async () => {
  driver = createDockerDriver({ hostId: "perflab-image-tests" });
  await driver.docker.ping();
});

afterAll(async () => {
  await driver?.removeOrphans().catch(() => undefined);
});

it("finds the reference servers, each with an image the docker driver can run", () => {
  // The six that ship with perflab, read from servers/ rather than listed anywhere else.
  expect(catalog.map((s) => s.name)).toEqual(
    expect.arrayContaining(["bun", "go", "java", "node", "python", "rust"]),
  );
  const without = catalog.filter((s) => !WITH_IMAGE.includes(s.name)).map((s) => `servers/${s.name}`);
  expect(without, "folders with neither a Dockerfile nor a registered image").toEqual([]);
});

describe.each(WITH_IMAGE)("the %s image", (name) => {
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
      const mcp = server.protocols.includes("mcp");
      await waitForHealthy({
        baseUrl,
        mcpPath: mcp ? server.mcpPath : null,
        healthPath: server.healthPath,
        timeoutMs: 60_000,
        exited: started.exited,
      }).catch((error: Error) => {
        throw new Error(`${name} did not become healthy: ${error.message}\n${started.logTail()}`);
      });
      if (mcp) await expectToolsAndEcho(baseUrl, server);
      else {
        // A REST-only server (manifest protocols ["http"]) answers its trivial route instead.
        const time = await fetch(`${baseUrl}/rest/time`);
        expect(time.status).toBe(200);
        expect(await time.text()).toMatch(/^\{"now_ms":\d+\}$/);
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

/** Over MCP: the manifest's tools are listed and echo answers. */
async function expectToolsAndEcho(baseUrl: string, server: (typeof catalog)[number]) {
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
}
