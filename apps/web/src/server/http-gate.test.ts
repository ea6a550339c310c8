import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installHttpGate, refuseUnroutable } from "./http-gate";

const refuse = (method: string, url: string) => refuseUnroutable(method, url, new Headers());

describe("refuseUnroutable", () => {
  it("refuses an API path with a dot segment in any spelling, naming the path", async () => {
    for (const url of [
      "/api/v1/runs/..",
      "/api/v1/runs/%2e%2e",
      "/api/v1/runs/.",
      "/api/%2E./v1/runs",
      "/api/v1/reports/.%2e/cells.csv",
    ]) {
      const response = refuse("GET", url);
      expect(response?.status, url).toBe(400);
      expect(response?.headers.get("content-type")).toBe("application/problem+json");
      expect((await response!.json()).errors[0].field).toBe("(path)");
    }
  });

  it("leaves dots that are not a whole segment, dots in the query and pages' dot segments to Next.js", () => {
    for (const url of [
      "/api/v1/runs/a.b",
      "/api/v1/runs/...",
      "/api/v1/runs?q=..",
      "/runs/%2e%2e",
      "/_next/static/a.js",
    ]) {
      expect(refuse("GET", url), url).toBeNull();
    }
  });

  it("answers TRACE with a 405 naming the methods allowed: a problem on the API, a page elsewhere", async () => {
    const api = refuse("TRACE", "/api/v1/runs?limit=1");
    expect(api?.status).toBe(405);
    expect(api?.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect((await api!.json()).errors).toEqual([
      { field: "(method)", message: "must be one of GET, HEAD, OPTIONS" },
    ]);
    expect(refuse("TRACE", "/api/v1/nonexistent")?.status).toBe(404);
    const page = refuse("TRACE", "/runs/new");
    expect(page?.status).toBe(405);
    expect(page?.headers.get("allow")).toBe("GET, HEAD");
    expect(await page!.text()).toContain("Method not allowed");
  });
});

describe("installHttpGate", () => {
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    installHttpGate();
    installHttpGate(); // once only, however often it is called
    server = http.createServer((_req, res) => res.end("reached the app"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const raw = (method: string, path: string) =>
    new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      http
        // Options rather than a URL, which would resolve the dot segments before they are sent.
        .request({ host: "127.0.0.1", port, path, method }, (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (c: string) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        })
        .on("error", reject)
        .end();
    });

  it("answers what it refuses before the server's own handler, with the lab's security headers", async () => {
    const trace = await raw("TRACE", "/");
    expect(trace.status).toBe(405);
    expect(trace.headers["x-frame-options"]).toBe("DENY");
    expect(trace.headers["x-content-type-options"]).toBe("nosniff");
    expect((await raw("GET", "/api/v1/runs/%2e%2e")).status).toBe(400);
    const head = await raw("HEAD", "/api/v1/runs/..");
    expect([head.status, head.body]).toEqual([400, ""]);
  });

  it("answers what Node's parser refuses under /api with a problem: a long request line, an unknown method", async () => {
    const long = await raw("GET", `/api/v1/runs?gitRepo=${"a".repeat(20_000)}`);
    expect(long.status).toBe(431);
    expect(long.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(long.body).errors[0].field).toBe("(headers)");
    const track = await raw("TRACK", "/api/v1/runs");
    expect([track.status, JSON.parse(track.body).errors[0].field]).toEqual([400, "(method)"]);
    // Pages keep Node's own answer.
    const page = await raw("GET", `/runs/new?x=${"a".repeat(20_000)}`);
    expect([page.status, page.body]).toEqual([431, ""]);
  });

  it("hands every other request to the server", async () => {
    expect(await raw("GET", "/api/v1/runs")).toMatchObject({ status: 200, body: "reached the app" });
    expect(await raw("POST", "/runs/a.b")).toMatchObject({ status: 200, body: "reached the app" });
  });
});
