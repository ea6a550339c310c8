/**
 * What the API answers a request no route serves, against the running web app: an unknown path is a
 * problem+json 404 (not the dashboard's HTML page), a method a route does not serve a problem+json
 * 405 naming the methods it does in `Allow`. And a JSON body may start with a byte order mark.
 */
import { describe, expect, inject, it } from "vitest";

type Problem = {
  type: string;
  status: number;
  detail?: string;
  errors?: { field: string; message: string }[];
};

const web = () => inject("webUrl");

async function problemOf(response: Response): Promise<Problem> {
  expect(response.headers.get("content-type")).toContain("application/problem+json");
  return (await response.json()) as Problem;
}

describe("requests no route serves", () => {
  it("answers an unknown API path with a problem+json 404, whatever the method", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/nonexistent"],
      ["POST", "/api/v1/runs/some-run/nonexistent"],
      ["DELETE", "/api/v2/runs"],
      ["GET", "/api"],
    ] as const) {
      const response = await fetch(`${web()}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await problemOf(response)).toMatchObject({ type: "urn:perflab:problem:not-found", status: 404 });
    }
    // Pages keep their HTML 404.
    const page = await fetch(`${web()}/nonexistent`);
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toContain("text/html");
  });

  it("answers a method a route does not serve with a problem+json 405 and an Allow header", async () => {
    const cases = [
      ["GET", "/api/v1/matrices", "OPTIONS, POST"],
      ["PUT", "/api/v1/runs", "GET, HEAD, OPTIONS"],
      ["DELETE", "/api/v1/runs/some-run", "GET, HEAD, OPTIONS"],
      ["POST", "/api/v1/reports/qXOTFlBeLtsEkiuznHSmvA", "DELETE, GET, HEAD, OPTIONS"],
    ] as const;
    for (const [method, path, allow] of cases) {
      const response = await fetch(`${web()}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get("allow")).toBe(allow);
      expect(await problemOf(response)).toMatchObject({
        type: "urn:perflab:problem:method-not-allowed",
        status: 405,
        errors: [{ field: "(method)", message: `must be one of ${allow}` }],
      });
    }
    // What a route serves still reaches it: OPTIONS lists the same methods.
    const options = await fetch(`${web()}/api/v1/runs`, { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect((await fetch(`${web()}/api/v1/runs`, { method: "HEAD" })).status).toBe(200);
  });

  it("answers a path that is not valid percent-encoded UTF-8 with a problem+json 400 naming it", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/reports/%FF"],
      ["POST", "/api/v1/runs/%E0/cancel"],
      ["GET", "/api/v1/runs/abc%C3"],
    ] as const) {
      const response = await fetch(`${web()}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(400);
      const problem = await problemOf(response);
      expect(problem.errors?.[0]?.field).toBe("(path)");
      expect(problem.errors?.[0]?.message).toMatch(/is not valid percent-encoded UTF-8/);
    }
    // Valid encoding still reaches the route: an unknown run is its 404.
    const encoded = await fetch(`${web()}/api/v1/runs/%C3%A9t%C3%A9`);
    expect(encoded.status).toBe(404);
  });

  it("reads a JSON body that starts with a UTF-8 byte order mark", async () => {
    const response = await fetch(`${web()}/api/v1/matrices`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `\uFEFF${JSON.stringify({ servers: [], scenarios: [], loadLevels: [], durationSec: 1 })}`,
    });
    // Read as JSON: its fields are judged (none is valid), rather than a 400 for the whole body.
    expect(response.status).toBe(422);
    expect((await problemOf(response)).errors?.map((e) => e.field)).toContain("servers");
  });
});
