import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium, pageOf, testDb, tokenInDb } from "./helpers.ts";

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

const withPage = (name: string, fn: (page: Page) => Promise<void>) => pageOf(browser, name, fn);

async function fill(page: Page, label: string, value: string) {
  await page.getByLabel(label, { exact: false }).first().fill(value);
}

/** The summary table's first row, by column heading. */
function firstSummaryRow(summary: Locator): Promise<Record<string, string | undefined>> {
  return summary.evaluate((table: HTMLTableElement) => {
    const headings = Array.from(table.tHead!.rows[0]!.cells).map((th) => th.textContent?.trim() ?? "");
    const cells = Array.from(table.tBodies[0]!.rows[0]!.cells).map((td) => td.textContent?.trim() ?? "");
    return Object.fromEntries(headings.map((h, i) => [h, cells[i]]));
  });
}

/** Ticks exactly these servers in the form's server group. */
async function chooseServers(page: Page, names: string[]) {
  await page.getByRole("button", { name: "Clear the server selection" }).click();
  for (const name of names) await page.getByTestId(`server-${name}`).check();
}

/** Whether the page is wider than a 390 px phone's screen: no page may scroll sideways there. */
async function fitsPhone(page: Page, path: string): Promise<{ path: string; width: number }> {
  await page.goto(`${inject("webUrl")}${path}`);
  await page.waitForLoadState("networkidle");
  return { path, width: await page.evaluate(() => document.documentElement.scrollWidth) };
}

/** A chart's tick values on one axis as printed ("6,000", "15 s"), as numbers. */
async function tickValues(chart: Locator, axis: "x" | "y"): Promise<number[]> {
  const labels = chart.locator(`.recharts-${axis}Axis-tick-labels .recharts-cartesian-axis-tick-value`);
  const texts = await labels.allTextContents();
  return texts.map((t) => Number(t.replace(/[^\d.-]/g, "")));
}

/** Ticks at the multiples of one step of 1, 2, 2.5 or 5 times a power of ten, evenly. */
function isRound(ticks: number[]): boolean {
  if (ticks.length < 2) return false;
  const step = ticks[1]! - ticks[0]!;
  const mantissa = step / 10 ** Math.floor(Math.log10(step));
  return (
    [1, 2, 2.5, 5].some((m) => Math.abs(mantissa - m) < 1e-9) &&
    Math.abs(ticks[0]! / step - Math.round(ticks[0]! / step)) < 1e-6 &&
    ticks.every((t, i) => Math.abs(t - ticks[0]! - i * step) < step * 1e-6)
  );
}

describe("run a benchmark from the browser (real Chromium)", () => {
  it("shows a field error for a bad value and does not submit", async () => {
    await withPage("bad-value", async (page) => {
      await page.goto(`${inject("webUrl")}/runs/new`);
      const vus = page.locator("#vus");
      // A field's hint describes it; once in error, its error does, and it is marked invalid.
      expect(await vus.getAttribute("aria-describedby")).toBe("vus-hint");
      expect(await page.locator("#vus-hint").textContent()).toMatch(/One load level per value/);
      expect(await vus.getAttribute("aria-invalid")).toBe("false");
      // Levels the schema refuses: the preview names the fields to fix, not counts of what is left.
      await fill(page, "Virtual users", "10, 0, abc");
      await expect.poll(() => page.getByTestId("preview-invalid").textContent()).toMatch(/^Fix /);
      expect(await page.getByTestId("preview-invalid-fields").textContent()).toBe(
        "Not valid yet: Virtual users",
      );
      expect(await page.getByTestId("preview-cells").count()).toBe(0);
      await fill(page, "Virtual users", "0");
      // Focus sits on the submit button; the refusal takes it to the first field in error.
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await expect.poll(() => page.getByTestId("error-loadLevels.0.vus").textContent()).toMatch(/at least 1/);
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("vus");
      expect(await vus.getAttribute("aria-invalid")).toBe("true");
      expect(await vus.getAttribute("aria-describedby")).toBe("vus-error");
      expect(await page.locator("#vus-error").textContent()).toMatch(/0: must be at least 1/);
      expect(await page.getByTestId("preview-invalid").textContent()).toBe("Fix the highlighted fields");
      // A level's error names its value; no server ticked is an error beside the group.
      await fill(page, "Virtual users", "10, abc");
      await expect
        .poll(() => page.getByTestId("error-loadLevels.1.vus").textContent())
        .toMatch(/abc: must be a number/);
      // A repeated level is refused by the schema the API shares, at the repeat.
      await fill(page, "Virtual users", "10, 10");
      await expect
        .poll(() => page.getByTestId("error-loadLevels.1").textContent())
        .toMatch(/10: is listed twice/);
      // The open model takes rates, and the pool's own errors show beside the pool.
      await page.getByLabel("Load model").selectOption("open");
      await fill(page, "Calls per second", "0");
      await expect
        .poll(() => page.getByTestId("error-loadLevels.0.rate").textContent())
        .toMatch(/0: must be at least 1 call per second/);
      await fill(page, "Calls per second", "100");
      await fill(page, "Max VUs", "0");
      await expect.poll(() => page.getByTestId("error-maxVus").textContent()).toMatch(/at least 1/);
      expect(await page.getByTestId("error-loadLevels.0.rate").count()).toBe(0);
      await page.getByRole("button", { name: "Clear the server selection" }).click();
      await expect.poll(() => page.getByTestId("error-servers").textContent()).toMatch(/at least one server/);
      expect(await page.locator("fieldset#servers").getAttribute("aria-describedby")).toBe("servers-error");
      // The server group is the first field in error now: a refused submit focuses its first box.
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await expect
        .poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name))
        .toBe("servers");
      expect(await page.getByTestId("preview-invalid-fields").textContent()).toBe(
        "Not valid yet: Servers, Max VUs",
      );
      expect(new URL(page.url()).pathname).toBe("/runs/new");
    });
  });

  it("offers each server's variants under it, as servers of their own in the matrix", async () => {
    await withPage("variants", async (page) => {
      await page.goto(`${inject("webUrl")}/runs/new`);
      await fill(page, "Virtual users", "10");
      await chooseServers(page, ["node"]);
      await expect.poll(() => page.getByTestId("preview-cells").textContent()).toBe("1 cell");
      const cluster = page.getByTestId("server-node:cluster");
      // Labelled by its own part of the name, explained on hover.
      expect(await cluster.locator("xpath=..").textContent()).toBe("stateless cluster");
      expect(await cluster.locator("xpath=..").getAttribute("title")).toMatch(/CLUSTER_WORKERS=auto/);
      await cluster.check();
      await page.getByTestId("server-python:workers").check();
      await expect.poll(() => page.getByTestId("preview-cells").textContent()).toBe("3 cells");
      // A matrix past its limit is no one field's fault: the preview counts it and names the limit.
      await fill(page, "Rounds", "20");
      await fill(page, "Virtual users", Array.from({ length: 10 }, (_, i) => i + 1).join(", "));
      await expect.poll(() => page.getByTestId("preview-cells").textContent()).toBe("600 cells");
      expect(await page.getByTestId("preview-limit").textContent()).toMatch(
        /^Too large: the matrix has 600 cells .*; at most 500\. Choose fewer/,
      );
      expect(await page.getByTestId("preview-invalid").count()).toBe(0);
      await fill(page, "Rounds", "1");
      await fill(page, "Virtual users", "10");
      await expect.poll(() => page.getByTestId("preview-cells").textContent()).toBe("3 cells");
      expect(await page.getByTestId("preview-limit").count()).toBe(0);
      // "all" means every server, not every way of starting one.
      await page.getByRole("button", { name: "Select every server (without variants)" }).click();
      expect(await page.getByTestId("server-node:cluster").isChecked()).toBe(false);
      expect(await page.locator('input[name="servers"]:checked').count()).toBe(
        await page.locator('input[name="servers"]:not([value*=":"]):not(:disabled)').count(),
      );
      // A REST-only server cannot take an MCP scenario: it is shown, unchecked and disabled.
      expect(await page.getByTestId("server-chi").isDisabled()).toBe(true);
    });
  });

  it("submits the form, watches the live chart grow while the cell runs, then reads the summary", async () => {
    await withPage("run-flow", async (page) => {
      await page.goto(`${inject("webUrl")}/runs/new`);
      await chooseServers(page, ["go"]);
      await fill(page, "Virtual users", "3");
      // Long enough for two of the live view's 5 s batches before the cell's end.
      await fill(page, "Duration", "16");
      await fill(page, "Warm-up", "1");
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await page.waitForURL(/\/runs\/[^/]+$/, { timeout: 15_000 });

      const chart = page.getByTestId("live-chart-rps");
      await chart.waitFor({ timeout: 45_000 });
      const points = async () => Number((await chart.getAttribute("data-points")) ?? "0");
      await expect.poll(points, { timeout: 30_000 }).toBeGreaterThan(0);
      const first = await points();
      // What is drawn, not only the chart's state: the line's path gains a vertex per new second.
      const line = chart.locator("path.recharts-line-curve").first();
      const vertices = (d: string | null) => (d?.match(/[ML]/g) ?? []).length;
      await expect
        .poll(async () => vertices(await line.getAttribute("d")), { timeout: 20_000 })
        .toBeGreaterThan(0);
      const drawn = (await line.getAttribute("d"))!;
      await expect.poll(points, { timeout: 20_000 }).toBeGreaterThan(first);
      await expect
        .poll(async () => vertices(await line.getAttribute("d")), { timeout: 20_000 })
        .toBeGreaterThan(vertices(drawn));
      expect(await line.getAttribute("d")).not.toBe(drawn);
      // The only cell is running: the progress bar moves with its seconds, short of done.
      const progress = page.getByTestId("run-progress").getByRole("progressbar");
      const shown = Number(await progress.getAttribute("aria-valuenow"));
      expect(shown).toBeGreaterThan(0);
      expect(shown).toBeLessThan(1);

      await expect
        .poll(() => page.getByTestId("run-status").textContent(), { timeout: 60_000 })
        .toMatch(/succeeded/i);
      const summary = page.getByTestId("summary-table");
      await summary.waitFor({ timeout: 15_000 });
      // The numbers on the page are the stored summary's.
      const runId = new URL(page.url()).pathname.split("/").at(-1)!;
      const detail = (await (await fetch(`${inject("webUrl")}/api/v1/runs/${runId}`)).json()) as {
        cells: { serverName: string; summary: { requests: number; latency: { p99: number } } | null }[];
      };
      const stored = detail.cells[0]!.summary!;
      const row = await firstSummaryRow(summary);
      expect(row.Cell).toMatch(/go/);
      expect(Number(row.Requests!.replace(/[^0-9]/g, ""))).toBe(stored.requests);
      const p99 = Number.parseFloat(row.p99!) * (row.p99!.endsWith(" s") ? 1000 : 1);
      expect(Math.abs(p99 - stored.latency.p99)).toBeLessThanOrEqual(
        Math.max(0.01, stored.latency.p99 * 0.005),
      );
      expect(await page.getByTestId("percentile-chart").getAttribute("data-cells")).toBe("1");
    });
  });

  it("holds sessions from the form, refusing a bad count beside its field, and shows what each costs", async () => {
    await withPage("held-sessions", async (page) => {
      await page.goto(`${inject("webUrl")}/runs/new`);
      await chooseServers(page, ["go"]);
      await fill(page, "Sessions per VU", "0");
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await expect
        .poll(() => page.getByTestId("error-scenarios.0.params.sessionsPerVu").textContent())
        .toMatch(/at least 1/);
      await fill(page, "Sessions per VU", "25");
      await fill(page, "Think time (ms)", "100");
      await fill(page, "Virtual users", "2");
      await fill(page, "Duration", "3");
      await fill(page, "Warm-up", "0");
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await page.waitForURL(/\/runs\/(?!new$)[^/]+$/, { timeout: 15_000 });
      await expect
        .poll(() => page.getByTestId("run-status").textContent(), { timeout: 90_000 })
        .toMatch(/succeeded/i);
      const summary = page.getByTestId("summary-table");
      await expect
        .poll(() => summary.locator("th", { hasText: "RSS / session" }).count(), { timeout: 20_000 })
        .toBe(1);
      const row = await firstSummaryRow(summary);
      expect(row.Cell).toContain("25 sessions per VU");
      expect(row.Cell).toContain("100 ms think");
      // 2 VUs × 25 sessions held, and what each cost the server in kB.
      expect(row.Sessions).toBe("50");
      expect(row["RSS / session"]).toMatch(/^-?[\d.,]+ kB$/);
    });
  });

  it("runs an open-model level with a session per call from the form, and shows its rate and dropped calls", async () => {
    await withPage("open-model", async (page) => {
      await page.goto(`${inject("webUrl")}/runs/new`);
      await chooseServers(page, ["go"]);
      await page.getByLabel("Sessions", { exact: true }).selectOption("per-call");
      await page.getByLabel("Load model").selectOption("open");
      await fill(page, "Calls per second", "60");
      await fill(page, "Max VUs", "4");
      await fill(page, "Duration", "3");
      await fill(page, "Warm-up", "0");
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await page.waitForURL(/\/runs\/[^/]+$/, { timeout: 15_000 });
      await expect
        .poll(() => page.getByTestId("run-status").textContent(), { timeout: 90_000 })
        .toMatch(/succeeded/i);
      expect(await page.getByTestId("run-spec").textContent()).toContain("60 calls/s (≤ 4 VUs)");
      const runId = new URL(page.url()).pathname.split("/").at(-1)!;
      const detail = (await (await fetch(`${inject("webUrl")}/api/v1/runs/${runId}`)).json()) as {
        cells: {
          rate: number | null;
          maxVus: number | null;
          params: { session?: string };
          summary: { droppedCalls: number | null } | null;
        }[];
      };
      const cell = detail.cells[0]!;
      expect(cell).toMatchObject({ rate: 60, maxVus: 4, params: { session: "per-call" } });
      const summary = page.getByTestId("summary-table");
      await expect
        .poll(() => summary.locator("th", { hasText: "Dropped" }).count(), { timeout: 20_000 })
        .toBe(1);
      expect(await page.getByTestId("summary-row-0").textContent()).toContain("session per call");
      expect(await page.getByTestId("summary-row-0").textContent()).toContain("60 calls/s");
      // The badge shows exactly when k6 dropped calls (4 VUs on a local echo normally keep 60/s).
      expect(await page.getByTestId("dropped-0").count()).toBe((cell.summary!.droppedCalls ?? 0) > 0 ? 1 : 0);
    });
  });

  it("runs a server in a container with the limits chosen in the form, and shows driver, limits and image", async () => {
    await withPage("docker-flow", async (page) => {
      await page.goto(`${inject("webUrl")}/runs/new`);
      await chooseServers(page, ["go"]);
      await fill(page, "Virtual users", "2");
      await fill(page, "Duration", "3");
      await fill(page, "Warm-up", "0");
      await page.getByLabel("Driver", { exact: true }).selectOption("docker");
      await fill(page, "CPU limit", "1");
      await fill(page, "Memory limit", "512");
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await page.waitForURL(/\/runs\/[^/]+$/, { timeout: 15_000 });

      await expect
        .poll(() => page.getByTestId("run-status").textContent(), { timeout: 90_000 })
        .toMatch(/succeeded/i);
      const runId = new URL(page.url()).pathname.split("/").at(-1)!;
      const detail = (await (await fetch(`${inject("webUrl")}/api/v1/runs/${runId}`)).json()) as {
        cells: { driver: string; limits: unknown; image: string | null; imageId: string | null }[];
      };
      const stored = detail.cells[0]!;
      expect(stored.driver).toBe("docker");
      expect(stored.limits).toEqual({ cpus: 1, memoryMb: 512, cpuset: null });
      expect(stored.image).toMatch(/^perflab\/server-go:[0-9a-f]{12}$/);
      expect(stored.imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
      // The content id is the engine's id of the image the cell names.
      const inspected = spawnSync("docker", ["image", "inspect", "--format", "{{.Id}}", stored.image!], {
        encoding: "utf8",
      });
      expect(inspected.stdout.trim(), inspected.stderr).toBe(stored.imageId);

      // The cell's row: driver, the limits the engine applied, the image's tag and content id.
      const driver = page.getByTestId("cell-driver-0");
      await expect.poll(() => driver.textContent(), { timeout: 15_000 }).toMatch(/^docker/);
      expect(await driver.textContent()).toContain("1 vCPU · 512 MB");
      const image = page.getByTestId("cell-image-0");
      expect(await image.textContent()).toContain(stored.image!);
      expect(await image.textContent()).toContain(
        stored.imageId!.slice("sha256:".length, "sha256:".length + 12),
      );
      expect(await image.locator(`[title="${stored.imageId}"]`).count()).toBe(1);
    });
  });

  it("queues a two-server × two-level matrix from the form and compares its cells", async () => {
    await withPage("matrix-flow", async (page) => {
      await page.goto(`${inject("webUrl")}/runs/new`);
      await chooseServers(page, ["go", "node"]);
      await fill(page, "Virtual users", "1, 2");
      await fill(page, "Duration", "2");
      await fill(page, "Warm-up", "0");
      await expect.poll(() => page.getByTestId("preview-cells").textContent()).toBe("4 cells");
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await page.waitForURL(/\/runs\/[^/]+$/, { timeout: 15_000 });

      const rows = page.locator('[data-testid^="cell-row-"]');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(4);
      // Server and VUs of each row, read by the table's own headings.
      const listed = await page.getByTestId("cell-table").evaluate((table: HTMLTableElement) => {
        const headings = Array.from(table.tHead!.rows[0]!.cells).map((th) => th.textContent?.trim());
        const server = headings.indexOf("Server");
        const vus = headings.indexOf("Load");
        return Array.from(table.tBodies[0]!.rows).map(
          (tr) => `${tr.cells[server]?.textContent} ${tr.cells[vus]?.textContent}`,
        );
      });
      expect(listed.sort()).toEqual(["go 1 VU", "go 2 VUs", "node 1 VU", "node 2 VUs"]);

      await expect
        .poll(() => page.getByTestId("run-status").textContent(), { timeout: 150_000 })
        .toMatch(/succeeded/i);
      // The server component refreshes once more after the last cell: wait for every summary.
      const comparison = page.getByTestId("comparison");
      await expect.poll(() => comparison.getAttribute("data-groups"), { timeout: 20_000 }).toBe("4");
      for (const metric of ["ops", "p99", "rss", "efficiency"]) {
        const chart = page.getByTestId(`compare-chart-${metric}`);
        expect(await chart.getAttribute("data-levels")).toBe("2");
        expect(await chart.getAttribute("data-servers")).toBe("2");
      }
      expect(await page.getByTestId("comparison-missing").count()).toBe(0);
      // Each cell's chart button names the cell; the charted one is pressed, not disabled.
      const chartButtons = page.getByTestId("cell-table").getByRole("button", { name: /^Chart / });
      expect(await chartButtons.count()).toBe(4);
      const names = await chartButtons.evaluateAll((els) => els.map((el) => el.getAttribute("aria-label")));
      expect(new Set(names).size).toBe(4);
      expect(names).toContain("Chart node, echo, 2 VUs, round 1 (cell 3)");
      const second = page.getByTestId("chart-cell-1");
      await second.click();
      expect(await second.getAttribute("aria-pressed")).toBe("true");
      expect(await second.isEnabled()).toBe(true);
      expect(await page.locator('[data-testid^="chart-cell-"][aria-pressed="true"]').count()).toBe(1);
      expect(await page.locator('[data-testid^="summary-row-"]').count()).toBe(4);
      // The comparison names k6-saturated bars exactly when a summary row flags its load generator.
      const saturatedRows = await page.locator('[data-testid^="saturated-"]').count();
      expect(await page.getByTestId("comparison-saturated").count()).toBe(saturatedRows > 0 ? 1 : 0);
      // No call failed: no note says so.
      expect(await page.getByTestId("comparison-failed-calls").count()).toBe(0);
      // The numbers behind the bars: one row per server and level, each round's ops/s as the summary
      // table has it (one round: no spread, no interval), and one fastest server per level.
      const tableRows = await page.getByTestId("comparison-table").evaluate((table: HTMLTableElement) =>
        Array.from(table.tBodies[0]!.rows).map((tr) => ({
          id: tr.dataset.testid,
          ops: tr.querySelector('[data-testid="ops"]')?.textContent,
          cv: tr.querySelector('[data-testid="cv"]')?.textContent,
          ci: tr.querySelector('[data-testid="ci"]')?.textContent,
          versus: tr.querySelector('[data-testid="versus"]')?.textContent,
        })),
      );
      expect(tableRows.map((r) => r.id).sort()).toEqual([
        "comparison-row-go-1",
        "comparison-row-go-2",
        "comparison-row-node-1",
        "comparison-row-node-2",
      ]);
      const summaryOps = await page.getByTestId("summary-table").evaluate((table: HTMLTableElement) => {
        const headings = Array.from(table.tHead!.rows[0]!.cells).map((th) => th.textContent?.trim());
        const cellColumn = headings.indexOf("Cell");
        const ops = headings.indexOf("Ops/s");
        return Array.from(table.tBodies[0]!.rows).map(
          (tr) => `${tr.cells[cellColumn]?.textContent} ${tr.cells[ops]?.textContent}`,
        );
      });
      for (const row of tableRows) {
        const [, server, vus] = row.id!.match(/^comparison-row-(\w+)-(\d+)$/)!;
        expect(
          summaryOps.some(
            (s) => s.includes(` ${server} · `) && s.includes(` · ${vus} VU`) && s.endsWith(` ${row.ops}`),
          ),
        ).toBe(true);
        expect([row.cv, row.ci]).toEqual(["—", "—"]);
      }
      for (const vus of ["1", "2"]) {
        const atLevel = tableRows.filter((r) => r.id!.endsWith(`-${vus}`));
        expect(atLevel.filter((r) => r.versus === "fastest")).toHaveLength(1);
        expect(atLevel.find((r) => r.versus !== "fastest")!.versus).toMatch(/^(0\.\d\d|1\.00) ×$/);
      }
      // Every chart is a picture named for what it shows, not a nameless stop in the tab order.
      expect(await page.locator("svg.recharts-surface[tabindex]").count()).toBe(0);
      const pictures = page.locator('[role="img"]:has(svg.recharts-surface)');
      expect(await pictures.count()).toBeGreaterThanOrEqual(10);
      for (const label of await pictures.evaluateAll((els) => els.map((el) => el.getAttribute("aria-label"))))
        expect(label?.length).toBeGreaterThan(20);
      expect(
        await page.getByTestId("compare-chart-ops").locator('[role="img"]').getAttribute("aria-label"),
      ).toMatch(/1 VU: go [\d,.]+, node [\d,.]+\. 2 VUs: go [\d,.]+, node [\d,.]+$/);
      // Round ticks on the value axes, and the same grouped numbers on every chart.
      for (const id of ["compare-chart-ops", "compare-chart-p99", "overlay-chart"]) {
        const ticks = await tickValues(page.getByTestId(id), "y");
        expect(isRound(ticks), `${id}: ${ticks}`).toBe(true);
      }
      // The percentile chart opens on a log axis past a tenfold spread (p50 to p99.9 of a fast echo
      // is more): its ticks are then consecutive powers of ten, and a click puts it back on round steps.
      const log = page.getByTestId("percentile-log");
      const percentileTicks = async () => tickValues(page.getByTestId("percentile-chart"), "y");
      if (await log.isChecked()) {
        const decades = await percentileTicks();
        expect(
          decades.length >= 2 &&
            decades.every((t, i) => i === 0 || Math.abs(t / decades[i - 1]! - 10) < 1e-9),
          `percentile-chart (log): ${decades}`,
        ).toBe(true);
        await log.uncheck();
      }
      await expect.poll(async () => isRound(await percentileTicks())).toBe(true);
      const seconds = await tickValues(page.getByTestId("overlay-chart"), "x");
      expect(isRound(seconds), `seconds: ${seconds}`).toBe(true);
      // Every cell ran on this machine with the same k6: no warning about mixed environments.
      expect(await page.getByTestId("comparison-environment").count()).toBe(0);
      // The same cells as a spreadsheet: the download holds a header and a row per cell.
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByTestId("export-csv").click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^perflab-run-[^/]+\.csv$/);
      const csvLines = (await readFile((await download.path())!, "utf8")).trimEnd().split("\r\n");
      expect(csvLines).toHaveLength(5);
      expect(csvLines[0]).toMatch(/^\uFEFFrun_id,cell_index,cell_id,server,/);
      // No page is wider than a 390 px phone: wide tables scroll within their own panels.
      await page.setViewportSize({ width: 390, height: 844 });
      const ownPath = new URL(page.url()).pathname;
      for (const path of [ownPath, "/", "/runs/new", "/reports", "/studies", "/settings/tokens"])
        expect(await fitsPhone(page, path)).toEqual({ path, width: 390 });
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${inject("webUrl")}${ownPath}`);
      await page.getByTestId("comparison").waitFor();

      // Over time: one chart per load level, a curve per server, drawn from the recorded seconds.
      const overlay = page.getByTestId("overlay");
      expect(await overlay.getAttribute("data-groups")).toBe("2");
      const overlayChart = page.getByTestId("overlay-chart");
      const curves = overlayChart.locator("path.recharts-line-curve");
      expect(await overlayChart.getAttribute("data-series")).toBe("2");
      await expect.poll(() => curves.count()).toBe(2);
      expect(Number(await overlayChart.getAttribute("data-points"))).toBeGreaterThanOrEqual(2);
      expect(await overlayChart.locator("figcaption").textContent()).toContain("Throughput · echo · 1 VU");
      const throughputPath = await curves.first().getAttribute("d");
      await page.getByTestId("overlay-metric-rss").click();
      expect(await overlay.getAttribute("data-metric")).toBe("rss");
      expect(await page.getByTestId("overlay-metric-rss").getAttribute("aria-pressed")).toBe("true");
      expect(await overlayChart.locator("figcaption").textContent()).toContain("Server memory");
      await expect.poll(() => curves.first().getAttribute("d")).not.toBe(throughputPath);
      await page.getByTestId("overlay-group").selectOption({ label: "echo · 2 VUs" });
      expect(await overlayChart.locator("figcaption").textContent()).toContain(
        "Server memory · echo · 2 VUs",
      );
      const legend = page.getByTestId("overlay-chart-legend").locator("li");
      expect(await legend.allTextContents()).toEqual(["go", "node"]);
      // Each legend swatch is drawn as its line is: a round's dash on both, one round solid.
      const dashes = await curves.evaluateAll((paths) =>
        paths.map((p) => p.getAttribute("stroke-dasharray") ?? "solid"),
      );
      expect(await legend.evaluateAll((items) => items.map((li) => li.getAttribute("data-dash")))).toEqual(
        dashes.map((d) => (d === "solid" || d === "none" ? "solid" : d)),
      );

      // Where each cell ran, on the run page too: one environment row per cell, each with the
      // runtime version its server reported.
      await page.getByTestId("environment-table").waitFor({ timeout: 15_000 });
      expect(await page.locator('[data-testid^="environment-row-"]').count()).toBe(4);
      expect(await page.locator('[data-testid^="environment-runtime-"]').count()).toBe(4);

      // A private report is the sharer's: chosen without a sign-in, the way to sign in comes first.
      await page.getByTestId("share-visibility").selectOption("private");
      expect(await page.getByTestId("share-button").isDisabled()).toBe(true);
      expect(await page.getByTestId("share-sign-in").getByRole("link").getAttribute("href")).toBe(
        `/sign-in?next=${encodeURIComponent(new URL(page.url()).pathname)}`,
      );
      await page.getByTestId("share-visibility").selectOption("unlisted");
      // Share the finished run, then open its frozen report: the same comparison and summary, no live data.
      await page.getByTestId("share-button").click();
      const permalink = await page.getByTestId("share-url").inputValue({ timeout: 15_000 });
      expect(permalink).toMatch(/\/r\/[A-Za-z0-9_-]{22}$/);
      const runPath = new URL(page.url()).pathname;
      const apiCalls: string[] = [];
      page.on("request", (request) => {
        if (new URL(request.url()).pathname.startsWith("/api/")) apiCalls.push(request.url());
      });
      await page.goto(permalink);
      await page.getByTestId("report-banner").waitFor({ timeout: 15_000 });
      expect(await page.getByTestId("report-live-link").getAttribute("href")).toBe(runPath);
      await page.getByTestId("summary-table").waitFor();
      expect(await page.locator('[data-testid^="summary-row-"]').count()).toBe(4);
      expect(await page.getByTestId("comparison").getAttribute("data-groups")).toBe("4");
      expect(await page.locator('[data-testid^="environment-row-"]').count()).toBe(4);
      // Each cell says the runtime version its server reported: Go's toolchain, Node's own version.
      expect((await page.locator('[data-testid^="environment-runtime-"]').allTextContents()).sort()).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^ran go1\.\d+/),
          expect.stringMatching(/^ran v\d+\./),
        ]),
      );
      expect(await page.locator('[data-testid^="environment-runtime-"]').count()).toBe(4);
      // The curves were frozen with it.
      expect(await page.getByTestId("overlay").getAttribute("data-groups")).toBe("2");
      await expect
        .poll(() => page.getByTestId("overlay-chart").locator("path.recharts-line-curve").count())
        .toBe(2);
      expect(apiCalls).toEqual([]);

      // Had a second worker host taken node's cells, the comparison would rank machines as much as
      // servers: the run page says which machine ran what.
      const runId = runPath.split("/").at(-1)!;
      const db = testDb();
      const nodeCells = await db.cell.findMany({ where: { runId, serverName: "node" } });
      for (const c of nodeCells) {
        await db.cell.update({
          where: { id: c.id },
          data: {
            hostFingerprint: {
              ...(c.hostFingerprint as Record<string, unknown>),
              hostId: "lab-2",
              hostname: "lab-2",
              cores: 64,
            },
          },
        });
      }
      await page.goto(`${inject("webUrl")}${runPath}`);
      const note = page.getByTestId("comparison-environment");
      await note.waitFor({ timeout: 15_000 });
      expect(await note.textContent()).toContain("different machines");
      const machines = await note.locator('li[data-aspect="machine"]').allTextContents();
      expect(machines).toHaveLength(2);
      expect(machines.find((m) => m.startsWith("lab-2 "))).toMatch(/64 cores.*: 2 cells \(node\)$/);
      expect(machines.find((m) => !m.startsWith("lab-2 "))).toMatch(/: 2 cells \(go\)$/);

      // Calls that failed are named beside the bars, per call: a tenth of node's first cell's calls.
      const failing = nodeCells.sort((a, b) => a.index - b.index)[0]!;
      const { ops } = await db.cellSummary.findUniqueOrThrow({ where: { cellId: failing.id } });
      await db.cellSummary.update({ where: { cellId: failing.id }, data: { errors: ops / 10n } });
      await page.goto(`${inject("webUrl")}${runPath}`);
      const failedNote = page.getByTestId("comparison-failed-calls");
      await failedNote.waitFor({ timeout: 15_000 });
      expect(await failedNote.textContent()).toMatch(/failed for node at \d+ VUs? \((9\.9|10\.0) %\): /);
      await db.cellSummary.update({ where: { cellId: failing.id }, data: { errors: 0n } });

      // The report made above is listed under the run and on the Reports page to its workspace (it
      // is unlisted: signed in with a token of it); revoking it there takes it out of the list and
      // its permalink down.
      const lister = await tokenInDb(`browser-lister-${Date.now()}`);
      await page.context().addCookies([
        {
          name: "perflab_token",
          value: lister.secret,
          url: inject("webUrl"),
          httpOnly: true,
          sameSite: "Strict",
        },
      ]);
      await page.goto(`${inject("webUrl")}${runPath}`);
      const slug = permalink.split("/").at(-1)!;
      const row = page.locator(`[data-testid="run-reports"] [data-slug="${slug}"]`);
      await row.waitFor({ timeout: 15_000 });
      await page.getByRole("link", { name: "Reports", exact: true }).click();
      await page.waitForURL(/\/reports$/);
      const reportRow = page.locator(`[data-testid="report-list"] [data-slug="${slug}"]`);
      await reportRow.waitFor({ timeout: 15_000 });
      // The run column names the run and links to it.
      const runLink = reportRow.locator(`a[href="${runPath}"]`);
      expect(await runLink.count()).toBe(1);
      const runName = (await testDb().run.findUniqueOrThrow({ where: { id: runPath.split("/").at(-1)! } }))
        .name;
      expect((await runLink.textContent())?.trim()).toBe(runName);
      // Each Revoke button names its report, so a list of them is not a list of identical buttons.
      const title = (await reportRow.locator(`a[href="/r/${slug}"]`).textContent())!.trim();
      await page.getByRole("button", { name: `Revoke ${title} (${slug})`, exact: true }).click();
      await reportRow.getByTestId("report-revoke-confirm").click();
      await reportRow.waitFor({ state: "detached", timeout: 15_000 });
      const revoked = await page.goto(permalink);
      expect(revoked?.status()).toBe(404);
      expect(await page.title()).toBe("Report not found · perflab");
      await testDb().apiToken.delete({ where: { id: lister.token.id } });
    });
  }, 240_000);

  it("compares two runs picked in the list of runs: a bar per server and run", async () => {
    const queue = async (name: string, baselineRunId?: string) => {
      const response = await fetch(`${inject("webUrl")}/api/v1/matrices`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name,
          servers: ["go"],
          scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "hi" } } }],
          loadLevels: [{ vus: 1 }],
          rounds: 1,
          durationSec: 2,
          warmupSec: 0,
          ...(baselineRunId ? { baselineRunId } : {}),
        }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { runId: string }).runId;
    };
    const before = await queue("before");
    // Judged against the first: its page shows the verdict once both have finished.
    const after = await queue("after", before);
    for (const id of [before, after]) {
      await expect
        .poll(
          async () =>
            (
              (await (await fetch(`${inject("webUrl")}/api/v1/runs/${id}`)).json()) as {
                run: { status: string };
              }
            ).run.status,
          { timeout: 120_000, interval: 1_000 },
        )
        .toBe("succeeded");
    }
    await withPage("compare-runs", async (page) => {
      await page.goto(inject("webUrl"));
      const compare = page.getByTestId("compare-selected");
      expect(await compare.isDisabled()).toBe(true);
      await page.getByTestId(`compare-pick-${after}`).check();
      await page.getByTestId(`compare-pick-${before}`).check();
      await compare.click();
      await page.waitForURL(/\/compare\?runs=/, { timeout: 15_000 });
      // Oldest first, whatever order they were ticked in.
      expect(new URL(page.url()).searchParams.get("runs")).toBe(`${before},${after}`);
      const comparison = page.getByTestId("comparison");
      expect(await comparison.getAttribute("data-groups")).toBe("2");
      expect(await page.getByTestId("comparison-legend").locator("li").allTextContents()).toEqual([
        "go · before",
        "go · after",
      ]);
      expect(await page.getByTestId("compare-runs-table").locator("tbody tr").count()).toBe(2);
      const versus = await page
        .getByTestId("comparison-table")
        .locator('[data-testid="versus"]')
        .allTextContents();
      expect(versus.filter((v) => v === "fastest")).toHaveLength(1);
      expect(await page.locator('[data-testid^="summary-row-"]').count()).toBe(2);
      // Over time: each run's cell is a curve in go's colour, the second run's dashed (legend too).
      const overlayChart = page.getByTestId("overlay-chart");
      expect(await overlayChart.getAttribute("data-series")).toBe("2");
      await expect.poll(() => overlayChart.locator("path.recharts-line-curve").count()).toBe(2);
      expect(Number(await overlayChart.getAttribute("data-points"))).toBeGreaterThanOrEqual(2);
      const overlayLegend = page.getByTestId("overlay-chart-legend").locator("li");
      expect(await overlayLegend.allTextContents()).toEqual(["go · before", "go · after"]);
      const lineDashes = await overlayLegend.evaluateAll((items) =>
        items.map((li) => li.getAttribute("data-dash")),
      );
      expect(lineDashes[0]).toBe("solid");
      expect(lineDashes[1]).not.toBe("solid");

      // A stale link names what it cannot find and still compares the rest.
      await page.goto(`${inject("webUrl")}/compare?runs=${before},no-such-run,${after}`);
      expect(await page.getByTestId("compare-unknown").textContent()).toContain("no-such-run");
      expect(await page.getByTestId("comparison").getAttribute("data-groups")).toBe("2");
      await page.goto(`${inject("webUrl")}/compare?runs=${before}`);
      expect(await page.getByTestId("empty-state").textContent()).toContain("Pick at least two runs");
      // Ids of no run: said in the plural, and no empty table of runs under it.
      await page.goto(`${inject("webUrl")}/compare?runs=no-such-a,no-such-b`);
      expect(await page.getByTestId("compare-unknown").textContent()).toBe(
        "No runs have the ids “no-such-a” and “no-such-b”.",
      );
      expect(await page.getByTestId("compare-runs-table").count()).toBe(0);
      expect(await page.getByTestId("empty-state").textContent()).toContain("Nothing to compare");

      // The run queued with a baseline: one check per metric of its one server and level, with a
      // link back to the baseline; whether one second of echo moved beyond 10 % is the machine's call.
      await page.goto(`${inject("webUrl")}/runs/${after}`);
      const verdict = page.getByTestId("verdict");
      expect(["pass", "fail"]).toContain(await verdict.getAttribute("data-outcome"));
      // A row per check the API makes: ops/s and p99 always; peak RSS and errors where both runs
      // have them (a busy machine can leave a 2-second window without an RSS sample).
      const judged = (await (
        await fetch(`${inject("webUrl")}/api/v1/runs/${after}/verdict?baseline=${before}`)
      ).json()) as { checks: { metric: string }[] };
      const metrics = judged.checks.map((c) => c.metric);
      expect(metrics).toEqual(expect.arrayContaining(["opsRps", "p99Ms"]));
      expect(await verdict.locator("tbody tr").count(), metrics.join(", ")).toBe(metrics.length);
      expect(await verdict.locator(`a[href="/runs/${before}"]`).count()).toBe(1);
      // A check's note is text on the page, its row pointing to it by number (no hover needed).
      const noteLinks = verdict.locator('tbody a[href^="#verdict-note-"]');
      for (const href of await noteLinks.evaluateAll((as) => as.map((a) => a.getAttribute("href")!))) {
        const note = page.locator(href);
        expect(await note.isVisible()).toBe(true);
        expect((await note.textContent())!.length).toBeGreaterThan(10);
      }
      expect(await verdict.locator("td[title]").count()).toBe(0);
      await page.goto(`${inject("webUrl")}/runs/${before}`);
      expect(await page.getByTestId("verdict").count()).toBe(0);
    });
  }, 180_000);

  it("titles its not-found pages as such", async () => {
    await withPage("not-found", async (page) => {
      for (const [path, title] of [
        ["/nope", "Not found · perflab"],
        ["/runs/no-such-run", "Run not found · perflab"],
        ["/r/no-such-report", "Report not found · perflab"],
      ]) {
        const response = await page.goto(`${inject("webUrl")}${path!}`);
        expect(response?.status()).toBe(404);
        expect(await page.title()).toBe(title);
        expect(await page.getByTestId("not-found").isVisible()).toBe(true);
      }
    });
  });

  it("cancels a running run from its page", async () => {
    await withPage("cancel-flow", async (page) => {
      await page.goto(`${inject("webUrl")}/runs/new`);
      await chooseServers(page, ["go"]);
      await fill(page, "Virtual users", "2");
      await fill(page, "Duration", "60");
      await fill(page, "Warm-up", "0");
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await page.waitForURL(/\/runs\/[^/]+$/, { timeout: 15_000 });
      // Wait for the cell to measure, then cancel (two steps: the button asks first).
      await page.getByTestId("live-chart-rps").waitFor({ timeout: 45_000 });
      await page.getByTestId("cancel-button").click();
      await page.getByTestId("cancel-confirm").click();
      await expect
        .poll(() => page.getByTestId("run-status").textContent(), { timeout: 30_000 })
        .toMatch(/cancelled/i);
      await expect.poll(() => page.getByTestId("cancel-button").count(), { timeout: 15_000 }).toBe(0);
      const row = page.locator('[data-testid^="cell-row-"]').first();
      await expect.poll(() => row.textContent(), { timeout: 30_000 }).toMatch(/cancelled/i);
    });
  });

  it("queues a study from the Studies page, quick or as published, on the lab's servers", async () => {
    await withPage("study", async (page) => {
      await page.goto(`${inject("webUrl")}/studies`);
      await page.getByRole("link", { name: "Studies" }).waitFor();
      const card = page.getByTestId("study-trivial-route");
      // Quick: node and go × 10 and 100 VUs, (3 + 10 + 2 + 3) s a cell.
      await expect
        .poll(() => card.getByTestId("study-trivial-route-size").textContent())
        .toBe("4 cells · ~70 s");
      await card.getByText("As published").click();
      await expect
        .poll(() => card.getByTestId("study-trivial-route-load").textContent())
        .toBe("10, 100, 500, 1000 VUs · 30 s after 5 s warm-up · 1 round · local");
      await expect.poll(() => card.getByTestId("study-trivial-route-size").textContent()).toMatch(/^8 cells/);
      const io = page.getByTestId("study-io-tools");
      // The label: the study's description says "As published" too.
      await io.locator("label", { hasText: "As published" }).click();
      await expect
        .poll(() => io.getByTestId("study-io-tools-load").textContent())
        .toContain("3 rounds · docker (2 vCPU / 2048 MB)");
      // Every system the study printed is a row: those this lab runs, and the others with why not.
      const rows = io.getByTestId("study-io-tools-rows").getByTestId("study-row");
      expect(await rows.count()).toBeGreaterThanOrEqual(15);
      expect(await io.getByTestId("study-io-tools-coverage").textContent()).toMatch(
        /^\d+ of the study's 15 systems run here$/,
      );
      await expect
        .poll(() => rows.filter({ hasText: "java-native" }).textContent())
        .toMatch(/not run: .*GraalVM native-image/);

      // The variant toggle's radios are hidden: their label shows where the keyboard is, and only then.
      const quickLabel = card.locator("label", { hasText: "Quick" });
      const ring = () => quickLabel.evaluate((label) => getComputedStyle(label).boxShadow);
      expect(await ring()).toBe("none");
      await card.getByRole("radio", { name: "As published" }).focus();
      await page.keyboard.press("ArrowLeft");
      expect(await card.getByRole("radio", { name: "Quick" }).isChecked()).toBe(true);
      expect(await ring()).not.toBe("none");
      // Workloads are list items: a workload's own parts are joined with " · " already.
      const workloads = await card
        .getByTestId("study-trivial-route-workloads")
        .locator("li")
        .allTextContents();
      expect(workloads.length).toBeGreaterThan(0);
      expect(workloads.every((w) => w.trim().length > 0)).toBe(true);

      await quickLabel.click();
      await card.getByTestId("study-trivial-route-queue").click();
      await page.waitForURL(/\/runs\/[^/]+$/);
      const runId = new URL(page.url()).pathname.split("/").pop()!;
      // The run shows the study's own figures beside its cells, row by row, before any has run.
      const beside = page.getByTestId("study-beside");
      await expect.poll(() => beside.getByTestId("study-beside-table").count()).toBe(2);
      const first = beside.getByTestId("study-beside-table").first();
      expect(await first.getByTestId("study-beside-row").allTextContents()).toEqual([
        expect.stringMatching(/^Nodenode12,90032\.7 %—/),
        expect.stringMatching(/^Gogo39,500100\.0 %—/),
      ]);
      // It need not run here: what was queued is the study's matrix.
      const cancel = await fetch(`${inject("webUrl")}/api/v1/runs/${runId}/cancel`, { method: "POST" });
      expect([202, 409]).toContain(cancel.status);
      const run = await testDb().run.findUniqueOrThrow({ where: { id: runId } });
      expect(run.name).toBe("A trivial HTTP route as connections grow (quick)");
      expect(run.cellsTotal).toBe(4);
      expect((run.spec as { servers: string[] }).servers).toEqual(["node", "go"]);
      await expect
        .poll(() => page.getByTestId("run-status").textContent(), { timeout: 30_000 })
        .toMatch(/cancelled/i);
    });
  });
});
