/**
 * Two fields of the run form in real Chromium: the stored-script picker of the `k6-script` scenario
 * (the workspace's scripts listed by name, the chosen one's id queued) and the client timeout (a
 * value the schema refuses is named beside its field and nothing is queued; a valid one is the
 * run's `timeoutMs`).
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, launchChromium, pageOf, testDb } from "./helpers.ts";

/** Plain HTTP, one operation an iteration, tagged as the lab counts operations (docs/custom-scripts.md). */
const SCRIPT = `import http from "k6/http";
export default function () {
  http.get(__ENV.TARGET + "/health", { tags: { tool: "health" } });
}
`;

let browser: Browser;
const NAME = `form-picker-${Date.now().toString(36)}`;
let scriptId = "";

beforeAll(async () => {
  browser = await launchChromium();
  const stored = await api("/api/v1/scripts", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: NAME, source: SCRIPT }),
  });
  expect(stored.status).toBe(201);
  scriptId = String(stored.body.id);
});

afterAll(async () => {
  await browser?.close();
  if (scriptId) await api(`/api/v1/scripts/${scriptId}`, { method: "DELETE" }).catch(() => undefined);
});

const withPage = (name: string, fn: (page: Page) => Promise<void>) => pageOf(browser, name, fn);

async function chooseLoad(page: Page) {
  await page.getByRole("button", { name: "Clear the server selection" }).click();
  await page.getByTestId("server-go").check();
  await page.getByLabel("Virtual users", { exact: false }).first().fill("2");
  await page.getByLabel("Duration", { exact: false }).first().fill("3");
  await page.getByLabel("Warm-up", { exact: false }).first().fill("0");
}

describe("the run form's script picker and client timeout (real Chromium)", () => {
  it("lists the workspace's stored scripts by name and queues the chosen one with the timeout", async () => {
    await withPage("run-form-script", async (page) => {
      await page.goto(`${inject("webUrl")}/runs/new`);
      await page.getByLabel("Scenario").selectOption("k6-script");
      const picker = page.getByLabel("Stored k6 script");
      await expect
        .poll(() => picker.locator("option", { hasText: NAME }).count(), { timeout: 15_000 })
        .toBe(1);
      await picker.selectOption({ label: NAME });
      await chooseLoad(page);

      // Refused by the schema: named beside the field, and the page stays on the form.
      await page.getByLabel("Client timeout (ms)").fill("0");
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await expect
        .poll(() => page.getByTestId("error-timeoutMs").first().textContent(), { timeout: 10_000 })
        .toMatch(/at least 1 ms/);
      expect(page.url()).toMatch(/\/runs\/new$/);

      await page.getByLabel("Client timeout (ms)").fill("2000");
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await page.waitForURL(/\/runs\/(?!new$)[^/]+$/, { timeout: 15_000 });
      await expect
        .poll(() => page.getByTestId("run-status").textContent(), { timeout: 120_000 })
        .toMatch(/succeeded/i);
      const runId = page.url().split("/").pop()!;
      const run = await testDb().run.findUniqueOrThrow({ where: { id: runId }, include: { cells: true } });
      const spec = run.spec as {
        timeoutMs?: number;
        scenarios: { id: string; params: { scriptId?: string } }[];
      };
      expect(spec.timeoutMs).toBe(2000);
      expect(spec.scenarios).toEqual([{ id: "k6-script", params: { scriptId } }]);
      expect(run.cells).toHaveLength(1);
      expect(run.cells[0]!.status).toBe("succeeded");
    });
  });
});
