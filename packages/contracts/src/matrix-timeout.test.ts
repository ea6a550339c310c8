import { describe, expect, it } from "vitest";
import { createMatrixSpecSchema } from "./matrix.ts";
import { fieldErrors } from "./problem.ts";

const schema = createMatrixSpecSchema({ servers: [{ name: "go", tools: ["echo"] }] });
const valid = {
  servers: ["go"],
  scenarios: [{ id: "mcp-tool-call", params: { tool: "echo", arguments: { message: "hi" } } }],
  loadLevels: [{ vus: 10 }],
  durationSec: 20,
};

describe("matrix spec timeoutMs", () => {
  it("takes a client timeout per request in ms, absent by default (k6's own 60 s)", () => {
    expect(schema.parse({ ...valid, timeoutMs: 2000 }).timeoutMs).toBe(2000);
    expect(schema.parse({ ...valid, timeoutMs: "200" }).timeoutMs).toBe(200);
    expect(schema.parse(valid).timeoutMs).toBeUndefined();
  });

  it("names the field when the timeout is not a whole number of ms from 1 to 60000", () => {
    for (const timeoutMs of [0, 1.5, 60_001, "soon"]) {
      const result = schema.safeParse({ ...valid, timeoutMs });
      expect(result.success, String(timeoutMs)).toBe(false);
      if (!result.success) expect(fieldErrors(result.error).map((e) => e.field)).toContain("timeoutMs");
    }
  });
});
