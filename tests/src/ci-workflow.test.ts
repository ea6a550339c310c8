/**
 * The GitHub Actions workflow of docs/ci.md, its steps run here as a job runs them: docs/ci/perflab-ci.sh
 * measures a reference server with perflab's k6, uploads to the suite's lab, judges the upload
 * against a baseline run and prints the report's permalink, whose page and Open Graph image make the
 * preview a pull request or a chat shows.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { repoRoot } from "../../scripts/lib/services.ts";
import { startGoServer, testDb } from "./helpers.ts";

const ciScript = path.join(repoRoot, "docs/ci/perflab-ci.sh");
let go: Awaited<ReturnType<typeof startGoServer>>;

beforeAll(async () => {
  go = await startGoServer("ci-workflow");
}, 60_000);

afterAll(async () => {
  await go?.server.stop(2_000);
});

/** One job's step: the script with the workflow's variables, and none of this machine's GITHUB_*. */
async function ciStep(env: Record<string, string>) {
  return promisify(execFile)("bash", [ciScript], {
    cwd: repoRoot,
    timeout: 120_000,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      PERFLAB_URL: inject("webUrl"),
      PERFLAB_SERVER: "ci-go",
      TARGET: go.baseUrl,
      MCP_PATH: go.mcpPath,
      VUS: "2",
      WARMUP: "1",
      DURATION: "3",
      // A call that takes 20 ms: its rate and p99 are steady enough on a busy machine to judge.
      TOOL: "sleep",
      ARGS: '{"ms":20}',
      PERFLAB_TOLERANCE: "50",
      ...env,
    },
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? "",
      stderr: error.stderr ?? "",
    }),
  );
}

const runIdOf = (stdout: string) => /^run: (\S+)/m.exec(stdout)?.[1];
const permalinkOf = (stdout: string) => /^permalink: (\S+)/m.exec(stdout)?.[1];

describe("the CI workflow", () => {
  it("is YAML whose job runs the step script", async () => {
    const workflow = parse(await readFile(path.join(repoRoot, "docs/ci/perflab.yml"), "utf8")) as {
      on: Record<string, unknown>;
      jobs: Record<string, { steps: { run?: string }[]; env: Record<string, string> }>;
    };
    expect(Object.keys(workflow.on)).toContain("pull_request");
    const job = Object.values(workflow.jobs)[0]!;
    expect(job.steps.some((s) => s.run?.includes("docs/ci/perflab-ci.sh"))).toBe(true);
    expect(job.env).toMatchObject({ PERFLAB_URL: expect.any(String), TARGET: "http://127.0.0.1:8080" });
    // docs/ci.md gives the same workflow.
    const page = await readFile(path.join(repoRoot, "docs/ci.md"), "utf8");
    expect(page).toContain("docs/ci/perflab-ci.sh");
  });

  it("passes a run like its baseline, fails a slower one, and prints each one's permalink", async () => {
    const baseline = await ciStep({});
    expect(baseline.code, baseline.stderr).toBe(0);
    const baselineRun = runIdOf(baseline.stdout);
    expect(baselineRun).toBeTruthy();
    expect(baseline.stdout).toMatch(/verdict: no baseline/);
    expect(permalinkOf(baseline.stdout)).toMatch(/\/r\/[A-Za-z0-9_-]{22,}$/);

    const same = await ciStep({ PERFLAB_BASELINE: baselineRun! });
    expect(same.code, `${same.stdout}\n${same.stderr}`).toBe(0);
    expect(same.stdout).toMatch(/verdict: pass/);
    expect(permalinkOf(same.stdout)).toBeTruthy();

    // The regression: each VU pauses 100 ms after each 20 ms call, so a sixth of the calls.
    const slower = await ciStep({ PERFLAB_BASELINE: baselineRun!, THINK_MS: "100" });
    expect(slower.code, `${slower.stdout}\n${slower.stderr}`).toBe(1);
    expect(slower.stdout).toMatch(/verdict: fail/);
    expect(slower.stderr).toMatch(/regression against run/);
    expect(permalinkOf(slower.stdout)).toBeTruthy();
  });

  it("refuses a target off the machine before any load", async () => {
    const away = await ciStep({ TARGET: "http://10.1.2.3:8080" });
    expect(away.code).toBe(2);
    expect(away.stderr).toMatch(/TARGET must be a server on 127\.0\.0\.1/);
  });
});

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

const metaOf = (html: string, key: string) =>
  new RegExp(`<meta (?:property|name)="${key}" content="([^"]*)"`).exec(html)?.[1]?.replaceAll("&amp;", "&");

describe("a report permalink's preview", () => {
  it("carries Open Graph and Twitter tags and a 1200×630 PNG of its comparison; a private one has no image", async () => {
    const step = await ciStep({});
    expect(step.code, step.stderr).toBe(0);
    const permalink = permalinkOf(step.stdout)!;
    const html = await (await fetch(permalink)).text();
    expect(metaOf(html, "og:title")).toBeTruthy();
    expect(metaOf(html, "og:url")).toBe(permalink);
    expect(metaOf(html, "twitter:card")).toBe("summary_large_image");
    expect(metaOf(html, "og:image:width")).toBe("1200");
    expect(metaOf(html, "og:image:height")).toBe("630");
    const image = metaOf(html, "og:image")!;
    expect(image.startsWith(`${permalink}/opengraph-image`)).toBe(true);

    const png = await fetch(image);
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    // Unlisted: for whoever has the link, never kept by a shared cache.
    expect(png.headers.get("cache-control")).toMatch(/private|no-store/);
    expect(pngSize(new Uint8Array(await png.arrayBuffer()))).toEqual({ width: 1200, height: 630 });

    // The same report made private: its image is not found, as its page is to a visitor.
    const slug = permalink.split("/r/")[1]!;
    const db = testDb();
    const report = await db.report.findUniqueOrThrow({ where: { slug } });
    const hidden = await db.report.create({
      data: {
        workspaceId: report.workspaceId,
        slug: `${slug.slice(0, 20)}private${Date.now()}`,
        title: "private preview",
        visibility: "private",
        selection: report.selection ?? {},
        snapshot: report.snapshot ?? {},
      },
    });
    const hiddenUrl = `${inject("webUrl")}/r/${hidden.slug}`;
    expect((await fetch(hiddenUrl)).status).toBe(404);
    const hiddenImage = await fetch(`${hiddenUrl}/opengraph-image`);
    expect(hiddenImage.status).toBe(404);
    expect(hiddenImage.headers.get("content-type")).not.toBe("image/png");
  });
});
