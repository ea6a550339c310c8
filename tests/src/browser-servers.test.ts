/**
 * The Servers page in real Chromium: register an endpoint (the Go binary started here), see it
 * listed and in the run form, errors that name their field (the form's own check and the API's),
 * a run of it whose summary says its CPU and RSS are not measured, and its removal.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchChromium, pageOf, startGoServer, testDb } from "./helpers.ts";

let browser: Browser;
let endpoint: Awaited<ReturnType<typeof startGoServer>>;
const NAME = "byo-browser";

beforeAll(async () => {
  browser = await launchChromium();
  endpoint = await startGoServer("browser-endpoint");
  await testDb().serverDefinition.deleteMany({ where: { name: NAME } });
});

afterAll(async () => {
  await browser?.close();
  await endpoint?.server.stop(5_000);
});

const withPage = (name: string, fn: (page: Page) => Promise<void>) => pageOf(browser, name, fn);

async function fillIdentity(page: Page, name: string) {
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Language").fill("go");
  await page.getByLabel("Runtime").fill("go 1.26");
  await page.getByLabel("SDK", { exact: true }).fill("github.com/modelcontextprotocol/go-sdk");
  await page.getByLabel("SDK version").fill("v1.8.0");
  await page.getByLabel("Tools").fill("echo, fibonacci");
}

describe("the Servers page (real Chromium)", () => {
  it("registers an endpoint, names bad fields, runs it from the run form and removes it", async () => {
    await withPage("servers-page", async (page) => {
      await page.goto(inject("webUrl"));
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Servers" }).click();
      await page.waitForURL(/\/servers$/);
      expect(await page.getByTestId("lab-servers").textContent()).toContain("go (");

      // The form's own check: an image without a tag, named beside its field, and nothing sent.
      await fillIdentity(page, NAME);
      await page.getByLabel("Image", { exact: true }).fill("acme/mcp");
      await page.getByTestId("server-register").click();
      await expect.poll(() => page.getByTestId("error-image").textContent()).toMatch(/tag or digest/);
      expect(await page.locator("#server-image").getAttribute("aria-invalid")).toBe("true");

      // The API's: a name the lab's own server has, a 409 naming `name`.
      await page.getByLabel("Kind").selectOption("endpoint");
      await page.getByLabel("URL", { exact: true }).fill(endpoint.baseUrl);
      await page.getByLabel("Name", { exact: true }).fill("go");
      await page.getByTestId("server-register").click();
      await expect.poll(() => page.getByTestId("error-name").textContent()).toMatch(/one of the lab's own/);

      await page.getByLabel("Name", { exact: true }).fill(NAME);
      await page.getByTestId("server-register").click();
      const row = page.getByTestId(`registered-${NAME}`);
      await row.waitFor({ timeout: 15_000 });
      expect(await row.textContent()).toContain("endpoint");
      expect(await row.textContent()).toContain("v1.8.0");
      await page.reload();
      await row.waitFor({ timeout: 15_000 });

      // Its run, from the run form, beside the lab's Go server.
      await page.goto(`${inject("webUrl")}/runs/new`);
      await page.getByRole("button", { name: "Clear the server selection" }).click();
      await page.getByTestId("server-go").check();
      await page.getByTestId(`server-${NAME}`).check();
      await page.getByLabel("Virtual users", { exact: false }).first().fill("2");
      await page.getByLabel("Duration", { exact: false }).first().fill("3");
      await page.getByLabel("Warm-up", { exact: false }).first().fill("0");
      await page.getByRole("button", { name: /start|queue|run/i }).click();
      await page.waitForURL(/\/runs\/[^/]+$/, { timeout: 15_000 });
      await expect
        .poll(() => page.getByTestId("run-status").textContent(), { timeout: 120_000 })
        .toMatch(/succeeded/i);
      const summary = page.getByTestId("summary-table");
      await summary.waitFor({ timeout: 15_000 });
      const rows = await summary.evaluate((table: HTMLTableElement) => {
        const headings = Array.from(table.tHead!.rows[0]!.cells).map((th) => th.textContent?.trim() ?? "");
        return Array.from(table.tBodies[0]!.rows).map((tr) =>
          Object.fromEntries(
            Array.from(tr.cells).map((td, i) => [headings[i], td.textContent?.trim() ?? ""]),
          ),
        );
      });
      const mine = rows.find((r) => Object.values(r).some((v) => String(v).includes(NAME)))!;
      const go = rows.find((r) => r !== mine)!;
      expect([mine["CPU avg"], mine["RSS peak"]]).toEqual(["not measured", "not measured"]);
      expect(go["CPU avg"]).toMatch(/%$/);

      // Removed: gone from the page and the run form; the run keeps its results.
      await page.goto(`${inject("webUrl")}/servers`);
      await page.getByRole("button", { name: `Remove ${NAME}` }).click();
      await page.getByTestId(`remove-confirm-${NAME}`).click();
      await row.waitFor({ state: "detached", timeout: 15_000 });
      await page.goto(`${inject("webUrl")}/runs/new`);
      expect(await page.getByTestId(`server-${NAME}`).count()).toBe(0);
    });
  }, 240_000);
});
