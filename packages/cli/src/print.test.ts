import { describe, expect, it } from "vitest";
import { level } from "./print.ts";

describe("a load level as the CLI prints it", () => {
  it("says an open-model rate in what the scenario starts", () => {
    expect(level({ vus: null, rate: 500, scenario: "mcp-tool-call" })).toBe("500 calls/s");
    expect(level({ vus: null, rate: 50, scenario: "mcp-tool-mix" })).toBe("50 sessions/s");
    expect(level({ vus: null, rate: 80, scenario: "http-route" })).toBe("80 requests/s");
  });

  it("says a closed model's VUs, and a dash for neither", () => {
    expect(level({ vus: 10, rate: null, scenario: "mcp-tool-mix" })).toBe("10 VUs");
    expect(level({ vus: null, rate: null, scenario: "mcp-tool-call" })).toBe("—");
  });
});
