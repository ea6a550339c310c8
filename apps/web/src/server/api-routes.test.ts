import { describe, expect, it } from "vitest";
import { allowedMethods, refuseMethod } from "./api-routes";

const request = (method: string, path: string) => new Request(`http://perflab.test${path}`, { method });

describe("API routes and their methods", () => {
  it("reads each path's methods from the OpenAPI document, with HEAD beside GET and OPTIONS", () => {
    expect(allowedMethods("/api/v1/matrices")).toEqual(["OPTIONS", "POST"]);
    expect(allowedMethods("/api/v1/runs")).toEqual(["GET", "HEAD", "OPTIONS"]);
    expect(allowedMethods("/api/v1/runs/cm3abc/events")).toEqual(["GET", "HEAD", "OPTIONS"]);
    expect(allowedMethods("/api/v1/reports/qXOTFlBeLtsEkiuznHSmvA")).toEqual([
      "DELETE",
      "GET",
      "HEAD",
      "OPTIONS",
    ]);
    expect(allowedMethods("/api/v1/runs/a/b/c")).toBeNull();
    expect(allowedMethods("/api/v1/nonexistent")).toBeNull();
    // A dot in a template is a dot, not any character.
    expect(allowedMethods("/api/v1/openapiXjson")).toBeNull();
  });

  it("answers a method a route does not serve with a 405 problem and an Allow header", async () => {
    const response = refuseMethod(request("PUT", "/api/v1/runs"))!;
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toMatchObject({
      type: "urn:perflab:problem:method-not-allowed",
      status: 405,
      errors: [{ field: "(method)", message: "must be one of GET, HEAD, OPTIONS" }],
    });
    expect(refuseMethod(request("GET", "/api/v1/matrices"))?.headers.get("allow")).toBe("OPTIONS, POST");
  });

  it("lets through the methods a route serves, and paths no route has (they answer 404)", () => {
    expect(refuseMethod(request("POST", "/api/v1/matrices"))).toBeNull();
    expect(refuseMethod(request("HEAD", "/api/v1/runs/x/events"))).toBeNull();
    expect(refuseMethod(request("OPTIONS", "/api/v1/matrices"))).toBeNull();
    expect(refuseMethod(request("PUT", "/api/v1/nonexistent"))).toBeNull();
  });
});
