/**
 * API tokens in the dashboard, in real Chromium: a lab with PERFLAB_ACCESS=token refuses the run
 * form until the browser signs in with a token; the settings page creates a token (its secret shown
 * once) and revokes it, after which the API refuses it. An open lab mints member tokens without a sign-in and lists tokens to an admin.
 * A private lab (PERFLAB_ACCESS=private) shows its runs only after a sign-in, its workspace's only.
 */
import { randomBytes } from "node:crypto";
import { TOKEN_PATTERN } from "@perflab/contracts";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Service } from "../../scripts/lib/services.ts";
import {
  launchChromium,
  pageOf,
  startPrivateLab,
  startTokenLab,
  testDb,
  tokenInDb,
  waitForRun,
} from "./helpers.ts";

let browser: Browser;
const started: Service[] = [];
const runIds: string[] = [];
const tokenIds: string[] = [];
const workspaceIds: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
  const db = testDb();
  await db.run.deleteMany({ where: { id: { in: runIds } } });
  await db.apiToken.deleteMany({ where: { id: { in: tokenIds } } });
  await db.workspace.deleteMany({ where: { id: { in: workspaceIds } } });
});

const withPage = (name: string, fn: (page: Page) => Promise<void>) => pageOf(browser, name, fn);

const unique = () => randomBytes(4).toString("hex");

/** A token made on the lab's machine, as `pnpm -s token create` does; removed after the file. */
async function madeToken(name: string, role: "admin" | "member" = "admin") {
  const created = await tokenInDb(name, null, role);
  tokenIds.push(created.token.id);
  return created;
}

/** The smallest run of the go server: one VU for 3 s, no warm-up. */
async function fillRunForm(page: Page, name: string) {
  await page.getByTestId("new-run-form").waitFor();
  await page.getByLabel("Name (optional)").fill(name);
  await page.getByRole("button", { name: "Clear the server selection" }).click();
  await page.getByTestId("server-go").check();
  await page.getByLabel("Virtual users").fill("1");
  await page.getByLabel("Duration (s)").fill("3");
  await page.getByLabel("Warm-up (s)").fill("0");
}

const tokenRow = (page: Page, prefix: string) => page.getByTestId("token-row").filter({ hasText: prefix });

describe("API tokens in the dashboard (real Chromium)", () => {
  it("in a token lab: refuses the run form, signs in, queues, creates and revokes a token, signs out", async () => {
    const web = await startTokenLab();
    started.push(web);
    const db = testDb();
    const runName = `tokens-browser-${unique()}`;

    await withPage("tokens-lab", async (page) => {
      const header = page.getByTestId("session");

      // Without a sign-in the settings page lists nothing and says how to get in.
      await page.goto(`${web.url}/settings/tokens`);
      await page.getByTestId("tokens-sign-in").waitFor();
      expect(await page.getByTestId("tokens-table").count()).toBe(0);

      // The run form's 401 names the problem and links to the sign-in, coming back here.
      await page.goto(`${web.url}/runs/new`);
      expect(await header.getByTestId("sign-in-link").count()).toBe(1);
      await fillRunForm(page, runName);
      await page.getByTestId("submit-run").click();
      const formError = page.getByTestId("form-error");
      await formError.waitFor({ timeout: 15_000 });
      expect(await formError.textContent()).toMatch(/needs an API token/);
      const signIn = formError.getByTestId("sign-in-link");
      expect(await signIn.getAttribute("href")).toBe("/sign-in?next=%2Fruns%2Fnew");
      expect(await db.run.count({ where: { name: runName } })).toBe(0);

      // The first token comes from the lab's machine; a wrong one is refused beside the field.
      const { secret, token } = await madeToken(`lab-admin-${unique()}`);
      await signIn.click();
      await page.waitForURL(/\/sign-in\?next=/);
      await page.getByLabel("API token").fill(`plab_${"A".repeat(43)}`);
      await page.getByTestId("sign-in-submit").click();
      await expect
        .poll(() =>
          page
            .getByTestId("error-token")
            .textContent()
            .catch(() => null),
        )
        .toMatch(/not a token of this lab/);
      expect(await page.getByLabel("API token").getAttribute("type")).toBe("password");
      await page.getByLabel("API token").fill(secret);
      await page.getByTestId("sign-in-submit").click();
      await page.waitForURL(`${web.url}/runs/new`);
      await expect
        .poll(() =>
          header
            .getByTestId("signed-in-as")
            .textContent()
            .catch(() => null),
        )
        .toBe(`Signed in as ${token.name}`);
      expect(await header.getByTestId("sign-in-link").count()).toBe(0);
      // Signed in, the header still fits a 390 px phone, its sign-out on the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
      const signOut = await header.getByTestId("sign-out").boundingBox();
      expect(signOut!.x + signOut!.width).toBeLessThanOrEqual(390);
      await page.setViewportSize({ width: 1280, height: 900 });

      // Signed in, the same form queues the run (the cookie is the credential), and the run cancels.
      await fillRunForm(page, runName);
      await page.getByTestId("submit-run").click();
      // Already on /runs/new: wait for a run's own page.
      await page.waitForURL(/\/runs\/(?!new$)[^/]+$/, { timeout: 15_000 });
      const runId = new URL(page.url()).pathname.split("/").at(-1)!;
      runIds.push(runId);
      const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run.name).toBe(runName);
      expect(run.apiTokenId).toBe(token.id);
      await page.getByTestId("cancel-button").click();
      await page.getByTestId("cancel-confirm").click();
      expect((await waitForRun(runId, 30_000)).status).toBe("cancelled");

      // Settings → a new token: its secret once, with how to use it.
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tokens" }).click();
      await page.waitForURL(`${web.url}/settings/tokens`);
      await page.getByLabel("Name", { exact: true }).fill("ci");
      await page.getByTestId("create-token").click();
      const ciSecret = await page.getByTestId("token-secret").inputValue({ timeout: 15_000 });
      expect(ciSecret).toMatch(/^plab_[A-Za-z0-9_-]{43}$/);
      expect(ciSecret).toMatch(TOKEN_PATTERN);
      const created = await page.getByTestId("token-created").textContent();
      expect(created).toMatch(/will not be shown again/);
      expect(created).toMatch(/PERFLAB_TOKEN/);
      expect(created).toMatch(/Authorization: Bearer/);
      const ciPrefix = ciSecret.slice(0, 12);
      tokenIds.push((await db.apiToken.findFirstOrThrow({ where: { prefix: ciPrefix } })).id);

      // Reloaded, the secret is gone for good; the list shows the token by its first characters.
      await page.reload();
      await tokenRow(page, ciPrefix).waitFor();
      expect(await page.getByTestId("token-secret").count()).toBe(0);
      expect(await page.content()).not.toContain(ciSecret);
      const row = tokenRow(page, ciPrefix);
      expect(await row.getAttribute("data-token-name")).toBe("ci");
      expect(await row.getByTestId("token-prefix").textContent()).toBe(`${ciPrefix}…`);
      expect(await row.getByTestId("token-state").getAttribute("data-state")).toBe("active");
      // The form's role starts at member; the signed-in token is the lab's admin.
      expect(await row.getByTestId("token-role").textContent()).toBe("member");
      expect(await tokenRow(page, token.prefix).getByTestId("token-role").textContent()).toBe("admin");
      // The signed-in token was used just now; "ci" never was.
      expect(await row.textContent()).toMatch(/never/);
      expect(await tokenRow(page, token.prefix).textContent()).toMatch(/this browser/);

      // Revoked (after a confirmation), it is refused by the API straight away.
      await row.getByTestId("revoke-button").click();
      await row.getByTestId("revoke-confirm").click();
      await expect.poll(() => row.getByTestId("token-state").getAttribute("data-state")).toBe("revoked");
      expect(await row.getByTestId("revoke-button").count()).toBe(0);
      const upload = await fetch(`${web.url}/api/v1/uploads`, {
        method: "POST",
        headers: { authorization: `Bearer ${ciSecret}`, "content-type": "application/x-ndjson" },
        body: "",
      });
      expect(upload.status).toBe(401);
      const problem = (await upload.json()) as { errors?: { field: string; message: string }[] };
      expect(problem.errors?.[0]).toMatchObject({
        field: "authorization",
        message: expect.stringMatching(/revoked/),
      });

      // Signed out, the header offers the sign-in again and the settings page is closed.
      await header.getByTestId("sign-out").click();
      await header.getByTestId("sign-in-link").waitFor({ timeout: 15_000 });
      expect(await header.getByTestId("signed-in-as").count()).toBe(0);
      await page.getByTestId("tokens-sign-in").waitFor({ timeout: 15_000 });

      // A member token signs in too, but its settings page shows itself only, with no form.
      const member = await madeToken(`lab-member-${unique()}`, "member");
      await page.goto(`${web.url}/sign-in?next=%2Fsettings%2Ftokens`);
      await page.getByLabel("API token").fill(member.secret);
      await page.getByTestId("sign-in-submit").click();
      await page.getByTestId("tokens-member").waitFor({ timeout: 15_000 });
      expect(await page.getByTestId("tokens-member").textContent()).toContain(member.token.name);
      expect(await page.getByTestId("token-form").count()).toBe(0);
      expect(await page.getByTestId("token-row").count()).toBe(1);
      expect(await tokenRow(page, member.token.prefix).getByTestId("token-role").textContent()).toBe(
        "member",
      );
    });
  }, 120_000);

  it("in an open lab: lists tokens to an admin only, and mints a member token without a sign-in", async () => {
    const webUrl = inject("webUrl");
    const listed = await madeToken(`listed-${unique()}`);
    const admin = await madeToken(`open-admin-${unique()}`);
    await withPage("tokens-open-admin", async (page) => {
      await page
        .context()
        .addCookies([
          { name: "perflab_token", value: admin.secret, url: webUrl, httpOnly: true, sameSite: "Strict" },
        ]);
      await page.goto(`${webUrl}/settings/tokens`);
      const row = tokenRow(page, listed.token.prefix);
      await row.waitFor();
      expect(await row.getAttribute("data-token-name")).toBe(listed.token.name);
      expect(await row.getByTestId("token-state").getAttribute("data-state")).toBe("active");
      // Last used and expires: both never.
      expect((await row.textContent())?.match(/never/g)).toHaveLength(2);
    });
    await withPage("tokens-open", async (page) => {
      await page.goto(`${webUrl}/settings/tokens`);
      await page.getByTestId("tokens-anonymous").waitFor();
      expect(await tokenRow(page, listed.token.prefix).count()).toBe(0);
      // An open lab needs no sign-in, but offers one (for private reports), coming back here.
      expect(await page.getByTestId("session").getByTestId("sign-in-link").getAttribute("href")).toBe(
        "/sign-in?next=%2Fsettings%2Ftokens",
      );

      // A field error beside the field, then a token that expires in 30 days.
      await page.getByTestId("create-token").click();
      await expect
        .poll(() =>
          page
            .getByTestId("error-name")
            .textContent()
            .catch(() => null),
        )
        .toMatch(/must not be empty/);
      const name = `open-${unique()}`;
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByLabel("Expires").selectOption("30");
      await page.getByTestId("create-token").click();
      const secret = await page.getByTestId("token-secret").inputValue({ timeout: 15_000 });
      expect(secret).toMatch(TOKEN_PATTERN);
      const stored = await testDb().apiToken.findFirstOrThrow({ where: { prefix: secret.slice(0, 12) } });
      tokenIds.push(stored.id);
      expect(stored.name).toBe(name);
      expect(stored).toMatchObject({ role: "member", mintedAnonymously: true });
      const days = (stored.expiresAt!.getTime() - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(29.9);
      expect(days).toBeLessThanOrEqual(30);
      const newRow = tokenRow(page, secret.slice(0, 12));
      expect(await newRow.getByTestId("token-state").getAttribute("data-state")).toBe("active");
      expect((await newRow.textContent())?.match(/never/g)).toHaveLength(1);

      // The reports page says what a sign-in would list, and links to it.
      await page.goto(`${webUrl}/reports`);
      const more = page.getByTestId("reports-sign-in");
      expect(await more.textContent()).toMatch(/Private reports are listed once you sign in/);
      expect(await more.getByRole("link").getAttribute("href")).toBe("/sign-in?next=%2Freports");
    });
  });

  it("in a private lab: sends the visitor to sign in, then shows its workspace's runs", async () => {
    const web = await startPrivateLab();
    started.push(web);
    const db = testDb();
    const { secret, token } = await madeToken(`private-member-${unique()}`, "member");
    const other = await db.workspace.create({ data: { slug: `other-${unique()}`, name: "Other" } });
    workspaceIds.push(other.id);
    /** A finished run made straight in the database: the list shows what it has. */
    const finishedRun = async (workspaceId: string, name: string) => {
      const run = await db.run.create({
        data: {
          workspaceId,
          source: "api",
          status: "succeeded",
          name,
          spec: { servers: ["go"], loadLevels: [{ vus: 1 }], durationSec: 2, warmupSec: 0, rounds: 1 },
          finishedAt: new Date(),
        },
      });
      runIds.push(run.id);
      return run;
    };
    const mine = await finishedRun(token.workspaceId, `private-mine-${unique()}`);
    const theirs = await finishedRun(other.id, `private-theirs-${unique()}`);

    await withPage("private-lab", async (page) => {
      const header = page.getByTestId("session");
      const nav = page.getByRole("navigation", { name: "Main" });

      // The runs page is the sign-in form until there is a sign-in; the header links to no page.
      await page.goto(`${web.url}/`);
      await page.waitForURL(`${web.url}/sign-in?next=%2F`);
      await page.getByTestId("sign-in-form").waitFor();
      expect(await page.textContent("main")).toMatch(/runs and results are private/);
      expect(await nav.count()).toBe(0);
      expect(await header.getByTestId("sign-in-link").count()).toBe(1);

      // A run's own address comes back to that run after the sign-in.
      await page.goto(`${web.url}/runs/${mine.id}`);
      await page.waitForURL(`${web.url}/sign-in?next=${encodeURIComponent(`/runs/${mine.id}`)}`);
      await page.getByLabel("API token").fill(secret);
      await page.getByTestId("sign-in-submit").click();
      await page.waitForURL(`${web.url}/runs/${mine.id}`);
      await expect
        .poll(() =>
          header
            .getByTestId("signed-in-as")
            .textContent()
            .catch(() => null),
        )
        .toBe(`Signed in as ${token.name}`);

      // The runs page: this workspace's run, not the other's.
      await nav.getByRole("link", { name: "Runs" }).click();
      await page.waitForURL(`${web.url}/`);
      await page.getByTestId(`run-row-${mine.id}`).waitFor();
      expect(await page.getByTestId(`run-row-${theirs.id}`).count()).toBe(0);
      expect(await page.getByTestId("runs-table").textContent()).toContain(mine.name);
      // The other workspace's run is not found, as one that does not exist.
      await page.goto(`${web.url}/runs/${theirs.id}`);
      await page.getByTestId("not-found").waitFor();

      // Signed out, the page goes back to the sign-in form.
      await page.goto(`${web.url}/`);
      await header.getByTestId("sign-out").click();
      await page.waitForURL(/\/sign-in\?next=/, { timeout: 15_000 });
      expect(await nav.count()).toBe(0);
    });
  }, 120_000);
});
