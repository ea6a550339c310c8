/**
 * The web app's defences, against the suite's real web app (bound to 127.0.0.1, so it answers to
 * loopback names only): security headers on pages and the API, a request for another host refused
 * (DNS rebinding), a method or path no route takes answered as a problem (API) or a 405 page (TRACE
 * and dot segments included), changes a page of another site asks a browser to make refused with
 * nothing written (the cross-site form post that needs no preflight included), pages' scripts held
 * to a nonce drawn per request, and, in real Chromium, a run whose name and server carry markup
 * shown as text without running it, and a script injected into a page refused while the page's own run.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import { deflateSync } from "node:zlib";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { echoUploadOf, launchChromium, pageOf, testDb } from "./helpers.ts";
import { ingested } from "./ingest-helpers.ts";

type Problem = { status: number; errors?: { field: string; message: string }[] };

const web = () => inject("webUrl");
const port = () => new URL(web()).port;
const unique = () => randomBytes(4).toString("hex");

/** A request with a Host header of our choosing (fetch does not let a caller set Host). */
function rawRequest(
  pathname: string,
  headers: Record<string, string>,
  method = "GET",
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: Number(port()), path: pathname, method, headers },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

let ndjson = "";
let browser: Browser;
const runIds: string[] = [];

beforeAll(async () => {
  ndjson = await echoUploadOf("security");
  browser = await launchChromium();
}, 180_000);

/** The suite's echo output uploaded as a 2 s run with these query fields; removed after the file. */
async function uploadRun(fields: Record<string, string>): Promise<{ runId: string }> {
  const query = new URLSearchParams({ durationSec: "2", warmupSec: "0", ...fields });
  const response = await fetch(`${web()}/api/v1/uploads?${query}`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: ndjson,
  });
  const created = (await response.json()) as { runId: string };
  expect(response.status, JSON.stringify(created)).toBe(202);
  runIds.push(created.runId);
  expect(await ingested(created.runId)).toMatchObject({ status: "succeeded" });
  return created;
}

afterAll(async () => {
  await browser?.close();
  await testDb()
    .run.deleteMany({ where: { id: { in: runIds } } })
    .catch(() => undefined);
});

describe("every response", () => {
  it("carries the security headers: no framing, no sniffing, no referrer to other sites", async () => {
    for (const pathname of ["/", "/runs/new", "/api/v1/servers", "/api/v1/runs", "/r/no-such-report"]) {
      const response = await fetch(`${web()}${pathname}`);
      await response.arrayBuffer();
      const h = response.headers;
      expect(h.get("x-frame-options"), pathname).toBe("DENY");
      expect(h.get("content-security-policy"), pathname).toContain("frame-ancestors 'none'");
      expect(h.get("x-content-type-options"), pathname).toBe("nosniff");
      expect(h.get("referrer-policy"), pathname).toBe("same-origin");
      expect(h.get("x-powered-by"), pathname).toBeNull();
    }
  });
});

describe("a page's scripts", () => {
  const nonceOf = (csp: string | null) => /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp ?? "")?.[1];

  it("carry the nonce of the page's script-src, drawn anew for every request", async () => {
    const nonces: string[] = [];
    for (const pathname of [
      "/",
      "/",
      "/runs/new",
      "/compare",
      "/settings/tokens",
      "/sign-in",
      "/r/no-such-report",
    ]) {
      const response = await fetch(`${web()}${pathname}`);
      const html = await response.text();
      const csp = response.headers.get("content-security-policy");
      const nonce = nonceOf(csp);
      expect(nonce, `${pathname}: ${csp}`).toBeDefined();
      expect(csp, pathname).toContain("'strict-dynamic'");
      // One policy, the base's directives in it (not a second header beside the base one).
      expect(csp?.match(/frame-ancestors 'none'/g), pathname).toHaveLength(1);
      expect(csp, pathname).not.toContain("unsafe-inline");
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.length, pathname).toBeGreaterThan(1);
      for (const tag of scripts) expect(tag, pathname).toContain(`nonce="${nonce}"`);
      nonces.push(nonce!);
    }
    expect(new Set(nonces).size).toBe(nonces.length);
    // JSON needs no script policy: the API keeps the base one.
    const api = await fetch(`${web()}/api/v1/servers`);
    await api.arrayBuffer();
    expect(api.headers.get("content-security-policy")).not.toContain("script-src");
  });

  it("run in real Chromium with no policy violation, and a script injected into a page does not", async () => {
    const created = await uploadRun({ server: "go", name: `csp ${unique()}` });
    type Booted = { next?: { appDir?: boolean }; __injected?: number };

    await pageOf(browser, "security-csp", async (page) => {
      const violations: string[] = [];
      page.on("console", (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      });
      for (const pathname of ["/", "/runs/new", `/runs/${created.runId}`, "/compare"]) {
        await page.goto(`${web()}${pathname}`);
        // Next.js's client booted: every chunk it loads ran under the policy.
        await page.waitForFunction(() => (window as Booted).next?.appDir === true);
      }
      expect(violations).toEqual([]);

      // The lab's page, served with its own headers, plus a tag the lab never wrote.
      await page.route(`${web()}/runs/new`, async (route) => {
        const original = await route.fetch();
        const body = (await original.text()).replace(
          "</body>",
          "<script>window.__injected=1</script></body>",
        );
        await route.fulfill({ response: original, body });
      });
      await page.goto(`${web()}/runs/new`);
      await page.waitForFunction(() => (window as Booted).next?.appDir === true);
      expect(await page.evaluate(() => (window as Booted).__injected)).toBeUndefined();
      expect(violations.length).toBeGreaterThan(0);
    });
  });
});

describe("a lab bound to 127.0.0.1", () => {
  it("answers to loopback names and refuses any other Host with a 400 naming the header", async () => {
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`, `[::1]:${port()}`]) {
      expect((await rawRequest("/api/v1/servers", { host })).status, host).toBe(200);
    }
    // A page whose name was rebound to 127.0.0.1 reaches the lab under that name: pages, reads and
    // writes are all turned away before anything runs.
    const before = await testDb().apiToken.count();
    for (const [pathname, method, body] of [
      ["/", "GET", undefined],
      ["/api/v1/runs", "GET", undefined],
      ["/api/v1/tokens", "POST", JSON.stringify({ name: `rebound-${unique()}` })],
      // An upload's body bypasses the middleware (middleware.ts): its route refuses the host itself.
      ["/api/v1/uploads?server=go&durationSec=2", "POST", JSON.stringify({ metrics: {} })],
    ] as const) {
      const r = await rawRequest(
        pathname,
        { host: `rebound.example:${port()}`, "content-type": "application/json" },
        method,
        body,
      );
      expect(r.status, `${method} ${pathname}`).toBe(400);
      const problem = JSON.parse(r.body) as Problem;
      expect(problem.errors?.[0]?.field).toBe("host");
      expect(problem.errors?.[0]?.message).toContain('"rebound.example"');
    }
    // Nor does a forwarded host the page sets itself get it in.
    const forwarded = await rawRequest("/api/v1/runs", {
      host: `127.0.0.1:${port()}`,
      "x-forwarded-host": "rebound.example",
    });
    expect(forwarded.status).toBe(400);
    expect((JSON.parse(forwarded.body) as Problem).errors?.[0]?.field).toBe("x-forwarded-host");
    expect(await testDb().apiToken.count()).toBe(before);
  });
});

describe("a method or path no route takes", () => {
  const problemOf = (r: { headers: http.IncomingHttpHeaders; body: string }) => {
    expect(r.headers["content-type"]).toContain("application/problem+json");
    return JSON.parse(r.body) as Problem;
  };
  const expectPage405 = (r: Awaited<ReturnType<typeof rawRequest>>, what: string) => {
    expect(r.status, what).toBe(405);
    expect(r.headers["content-type"], what).toContain("text/html");
    expect(r.headers.allow, what).toBe("GET, HEAD");
    expect(r.body, what).toContain("Method not allowed");
    expect(r.headers["x-frame-options"], what).toBe("DENY");
    expect(r.headers["x-content-type-options"], what).toBe("nosniff");
  };

  it("answers TRACE with a 405 naming the methods allowed, a problem on the API and a page elsewhere", async () => {
    // TRACE is a method the Fetch API refuses to represent: Next.js answered every one with a 500 page.
    for (const [pathname, allow] of [
      ["/api/v1/runs", "GET, HEAD, OPTIONS"],
      ["/api/v1/runs/some-run/cancel", "OPTIONS, POST"],
    ] as const) {
      const r = await rawRequest(pathname, {}, "TRACE");
      expect(r.status, pathname).toBe(405);
      expect(r.headers.allow, pathname).toBe(allow);
      expect(problemOf(r).errors).toEqual([{ field: "(method)", message: `must be one of ${allow}` }]);
    }
    const unknown = await rawRequest("/api/v1/nonexistent", {}, "TRACE");
    expect(unknown.status).toBe(404);
    expect(problemOf(unknown).errors?.[0]?.field).toBe("(path)");
    for (const pathname of ["/", "/runs/new", "/no-such-page"]) {
      expectPage405(await rawRequest(pathname, {}, "TRACE"), `TRACE ${pathname}`);
    }
  });

  it("answers a page asked for by a method pages do not serve with a 405 page, an unknown API path with a 404 problem", async () => {
    expectPage405(await rawRequest("/", {}, "PROPFIND"), "PROPFIND /");
    expectPage405(await rawRequest("/runs/new", {}, "POST", "x=1"), "POST /runs/new");
    expectPage405(await rawRequest("/compare", {}, "OPTIONS"), "OPTIONS /compare");
    // A method the catch-all route lacks got Next.js's empty 400.
    for (const method of ["PROPFIND", "MKCOL", "GET"]) {
      const r = await rawRequest("/api/v2/nonexistent", {}, method);
      expect(r.status, method).toBe(404);
      expect(problemOf(r).errors?.[0]?.field, method).toBe("(path)");
    }
  });

  it("answers an API path with a dot segment with a 400 problem naming the path, not the dashboard's 404 page", async () => {
    // The middleware sees the path with "%2e%2e" resolved away; the router took it for a run id.
    for (const pathname of [
      "/api/v1/runs/%2e%2e",
      "/api/v1/runs/..",
      "/api/v1/runs/.",
      "/api/v1/runs/%2E%2e/cancel",
      "/api/v1/reports/.%2e",
      "/api/%2e%2e/v1/runs",
    ]) {
      for (const method of ["GET", "POST"]) {
        const r = await rawRequest(pathname, {}, method);
        expect(r.status, `${method} ${pathname}`).toBe(400);
        expect(problemOf(r).errors?.[0]?.field, `${method} ${pathname}`).toBe("(path)");
      }
    }
    // Pages keep their HTML 404.
    const page = await rawRequest("/runs/%2e%2e", {});
    expect(page.status).toBe(404);
    expect(page.headers["content-type"]).toContain("text/html");
  });
});

describe("a change another site's page asks a browser to make", () => {
  it("is a 403 naming origin, and nothing is written; the lab's own pages and curl pass", async () => {
    const db = testDb();
    const name = `cross-site-${unique()}`;
    // What a page elsewhere can send without a CORS preflight: a text/plain or form body, which the
    // API still reads as JSON.
    const tries: [string, string, string][] = [
      ["/api/v1/tokens", "text/plain", JSON.stringify({ name })],
      // A valid matrix: let through, it would queue a run.
      [
        "/api/v1/matrices",
        "text/plain",
        JSON.stringify({
          servers: ["go"],
          scenarios: [{ id: "mcp-tool-call", params: { tool: "echo" } }],
          loadLevels: [{ vus: 1 }],
          durationSec: 1,
          warmupSec: 0,
        }),
      ],
      ["/api/v1/uploads?server=go&durationSec=2&warmupSec=0", "text/plain", ndjson],
      ["/api/v1/session", "application/x-www-form-urlencoded", "token=plab_x"],
    ];
    const runsBefore = await db.run.count();
    for (const [pathname, type, body] of tries) {
      for (const origin of ["https://evil.example", "null", `http://127.0.0.1:${Number(port()) + 1}`]) {
        const response = await fetch(`${web()}${pathname}`, {
          method: "POST",
          headers: { "content-type": type, origin, "sec-fetch-site": "cross-site" },
          body,
        });
        const problem = (await response.json()) as Problem;
        expect(response.status, `${pathname} from ${origin}`).toBe(403);
        expect(problem.errors?.[0]?.field).toBe("origin");
        expect(response.headers.get("set-cookie")).toBeNull();
      }
    }
    const revoke = await fetch(`${web()}/api/v1/tokens/anything`, {
      method: "DELETE",
      headers: { origin: "https://evil.example" },
    });
    expect(revoke.status).toBe(403);
    expect(await db.run.count()).toBe(runsBefore);
    expect(await db.apiToken.count({ where: { name } })).toBe(0);

    // The dashboard's own fetch (same origin) and a client without Origin (curl, CI) are served.
    const own = await fetch(`${web()}/api/v1/tokens`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: web(), "sec-fetch-site": "same-origin" },
      body: JSON.stringify({ name }),
    });
    expect(own.status).toBe(201);
    const curl = await fetch(`${web()}/api/v1/tokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    expect(curl.status).toBe(201);
    expect(await db.apiToken.count({ where: { name } })).toBe(2);
    await db.apiToken.deleteMany({ where: { name } });
  });
});

describe("input the lab cannot store or should not believe", () => {
  const counts = async () => [await testDb().run.count(), await testDb().cell.count()];
  async function expectField(response: Response, status: number, field: string | RegExp) {
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toMatch(/application\/problem\+json/);
    const problem = (await response.json()) as Problem;
    expect(problem.errors?.map((e) => e.field)).toContainEqual(
      field instanceof RegExp ? expect.stringMatching(field) : field,
    );
  }
  const upload = (body: string, query = "server=go&durationSec=2&warmupSec=0") =>
    fetch(`${web()}/api/v1/uploads?${query}`, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson" },
      body,
    });
  /**
   * An upload whose output the worker refuses: taken (202), then its run failed with the reason,
   * which names the field; the run is removed after the file.
   */
  async function refusedRun(response: Response) {
    const created = (await response.json()) as { runId: string };
    expect(response.status, JSON.stringify(created)).toBe(202);
    runIds.push(created.runId);
    const run = await ingested(created.runId);
    expect(run.status, JSON.stringify(run)).toBe("failed");
    return run.error ?? "";
  }
  /** The suite's real output with one interval line changed. */
  const tampered = (change: (line: Record<string, unknown>) => void) => {
    const lines = ndjson
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const interval = lines.find((l) => l.type === "interval" && (l.groups as unknown[]).length > 0)!;
    change(interval);
    return lines.map((l) => JSON.stringify(l)).join("\n");
  };

  it("answers a NUL character or a body nested past reason with a 4xx naming the field, writing nothing", async () => {
    const before = await counts();
    const spec = (args: unknown) =>
      fetch(`${web()}/api/v1/matrices`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          servers: ["go"],
          scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: args } }],
          loadLevels: [{ vus: 1 }],
          durationSec: 1,
        }),
      });
    await expectField(await spec({ message: "a\u0000b" }), 422, "scenarios.0.params.arguments.message");
    const deep = JSON.parse(`${"[".repeat(100)}${"]".repeat(100)}`);
    await expectField(await spec({ message: deep }), 422, /^scenarios\.0\.params\.arguments\.message(\.0)+$/);
    await expectField(await fetch(`${web()}/api/v1/runs?gitRepo=a%00b`), 422, "gitRepo");
    await expectField(await fetch(`${web()}/api/v1/reports?runId=%00`), 422, "runId");
    await expectField(await upload(ndjson, "server=go%00&durationSec=2"), 422, "server");
    await expectField(
      await upload(ndjson, `server=go&durationSec=2&arguments=${encodeURIComponent('{"m":"\\u0000"}')}`),
      422,
      "arguments",
    );
    // A path no check above sees: Postgres refuses the byte, the client hears it was theirs.
    const path = await fetch(`${web()}/api/v1/runs/a%00b`);
    expect(path.status).toBeGreaterThanOrEqual(400);
    expect(path.status).toBeLessThan(500);
    expect((await fetch(`${web()}/runs/a%00b`)).status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it("refuses k6 output whose numbers no k6 run makes, naming the line, and writes no cell", async () => {
    const [runsBefore, cellsBefore] = await counts();
    const cases: [string, (line: Record<string, unknown>) => void][] = [
      ["3e9 requests in a second", (l) => ((l.groups as Record<string, unknown>[])[0]!.requests = 3e9)],
      ["a second in the year 33658", (l) => (l.t = 1e12)],
      ["a second a year after the start", (l) => (l.t = (l.t as number) + 365 * 86_400)],
      ["1e30 bytes sent", (l) => (l.dataSent = 1e30)],
    ];
    for (const [what, change] of cases) {
      const error = await refusedRun(await upload(tampered(change)));
      expect(error, what).toMatch(/\(line \d+: /);
    }
    const lines = ndjson.trim().split("\n");
    const start = JSON.parse(lines[0]!) as { t: number };
    start.t = 1e20;
    const badStart = await upload([JSON.stringify(start), ...lines.slice(1)].join("\n"));
    expect(await refusedRun(badStart)).toContain("(line 1: ");
    // A failed run each, and not one cell.
    expect(await counts()).toEqual([runsBefore! + cases.length + 1, cellsBefore]);
  });

  it("refuses a histogram that would inflate to gigabytes, at once and without the memory", async () => {
    // 64 MiB of zeros deflate to about 64 KiB: an uploader's "histogram" the lab must not inflate.
    const zeros = deflateSync(Buffer.alloc(64 * 2 ** 20));
    const head = Buffer.alloc(8);
    head.writeInt32BE(0x1c849304 | 0x10, 0);
    head.writeInt32BE(zeros.length, 4);
    const bomb = Buffer.concat([head, zeros]).toString("base64");
    const [runsBefore, cellsBefore] = await counts();
    const started = Date.now();
    const response = await upload(tampered((l) => ((l.groups as Record<string, unknown>[])[0]!.hist = bomb)));
    expect(await refusedRun(response)).toMatch(/inflates past/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await counts()).toEqual([runsBefore! + 1, cellsBefore]);
  });
});

describe("markup in what users name (real Chromium)", () => {
  it("shows a run's name and server as text and never runs them", async () => {
    const markup = `<img src=x onerror="window.__pwned=1">`;
    const name = `xss ${unique()} ${markup}`;
    const created = await uploadRun({ server: `go${markup}`, name, tool: "echo" });

    await pageOf(browser, "security-markup", async (page) => {
      const dialogs: string[] = [];
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      for (const pathname of [`/runs/${created.runId}`, "/"]) {
        await page.goto(`${web()}${pathname}`);
        await page.getByText(name).first().waitFor();
        // The markup is on the page as the characters the user typed, not as an element.
        expect(await page.locator('img[src="x"]').count(), pathname).toBe(0);
        expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned), pathname).toBeUndefined();
      }
      await page.goto(`${web()}/runs/${created.runId}`);
      await page.getByText(`go${markup}`).first().waitFor();
      expect(await page.locator('img[src="x"]').count()).toBe(0);
      expect(dialogs).toEqual([]);
    });
  });
});
