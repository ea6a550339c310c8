import { describe, expect, it } from "vitest";
import { getOpenApiDocument } from "./openapi";

describe("OpenAPI document", () => {
  const doc = getOpenApiDocument();

  it("is OpenAPI 3.1 with every /api/v1 path", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths ?? {}).sort()).toEqual([
      "/api/v1/comparison",
      "/api/v1/matrices",
      "/api/v1/openapi.json",
      "/api/v1/reports",
      "/api/v1/reports/{slug}",
      "/api/v1/reports/{slug}/cells.csv",
      "/api/v1/runs",
      "/api/v1/runs/{id}",
      "/api/v1/runs/{id}/cancel",
      "/api/v1/runs/{id}/cells.csv",
      "/api/v1/runs/{id}/comparison",
      "/api/v1/runs/{id}/events",
      "/api/v1/runs/{id}/verdict",
      "/api/v1/scripts",
      "/api/v1/scripts/{id}",
      "/api/v1/servers",
      "/api/v1/servers/{id}",
      "/api/v1/session",
      "/api/v1/tokens",
      "/api/v1/tokens/{id}",
      "/api/v1/uploads",
      "/api/v1/workers",
    ]);
  });

  it("says which operations take an API token, and that an open lab takes none", () => {
    expect(doc.components?.securitySchemes?.apiToken).toMatchObject({ type: "http", scheme: "bearer" });
    const post = (path: string) => doc.paths?.[path]?.post;
    for (const path of ["/api/v1/matrices", "/api/v1/uploads", "/api/v1/reports", "/api/v1/tokens"]) {
      expect(post(path)?.security, path).toEqual([{ apiToken: [] }, {}]);
      expect(post(path)?.responses, path).toHaveProperty("401");
    }
    // Reading needs nothing, but a token that is sent is checked: optional, and a 401 when refused.
    for (const path of ["/api/v1/runs", "/api/v1/runs/{id}", "/api/v1/servers", "/api/v1/openapi.json"]) {
      expect(doc.paths?.[path]?.get?.security, path).toEqual([{ apiToken: [] }, {}]);
      expect(doc.paths?.[path]?.get?.responses, path).toHaveProperty("401");
    }
  });

  it("takes the run list's query parameters from the zod schema", () => {
    const parameters = doc.paths?.["/api/v1/runs"]?.get?.parameters ?? [];
    const limit = parameters.find((p) => "name" in p && p.name === "limit");
    expect(limit).toMatchObject({
      in: "query",
      required: false,
      schema: { minimum: 1, maximum: 100, default: 20 },
    });
    expect(parameters.map((p) => ("name" in p ? p.name : null)).sort()).toEqual([
      "cursor",
      "gitBranch",
      "gitRepo",
      "limit",
      "status",
    ]);
  });

  it("describes errors as RFC 9457 problems", () => {
    const responses = doc.paths?.["/api/v1/matrices"]?.post?.responses ?? {};
    for (const status of ["422", "503"]) {
      expect(responses[status].content).toHaveProperty(
        ["application/problem+json", "schema", "$ref"],
        "#/components/schemas/Problem",
      );
    }
    expect(doc.components?.schemas?.Problem).toMatchObject({ required: ["type", "title", "status"] });
  });

  it("lists every content type an upload's body is accepted as", () => {
    const body = doc.paths?.["/api/v1/uploads"]?.post?.requestBody;
    const content = body && "content" in body ? body.content : {};
    expect(Object.keys(content).sort()).toEqual([
      "application/gzip",
      "application/json",
      "application/jsonl",
      "application/octet-stream",
      "application/x-gzip",
      "application/x-ndjson",
      "text/plain",
    ]);
  });

  it("describes a report's snapshot as the contracts' schema does, its points included", () => {
    type Schema = { properties: Record<string, Schema>; required: string[]; type?: string };
    const report = doc.components?.schemas?.Report as Schema;
    const snapshot = report.properties.snapshot!;
    expect(Object.keys(snapshot.properties).sort()).toEqual(["cells", "points", "run", "version"]);
    expect(snapshot.properties.points?.type).toBe("object");
    // Reports frozen before the series were kept have none.
    expect(snapshot.required).not.toContain("points");
  });
});
