import { findStudy } from "@perflab/contracts";
import { describe, expect, it } from "vitest";
import { studyView, studyWorkload } from "./studies";

describe("study cards", () => {
  it("name each workload by its tool and the arguments that tell them apart", () => {
    expect(
      studyWorkload({
        id: "mcp-tool-call",
        params: { tool: "echo", arguments: { message: "hi", pad_to_bytes: 1024 } },
      }),
    ).toBe("echo (pad_to_bytes 1024)");
    expect(studyWorkload({ id: "mcp-tool-call", params: { tool: "echo", session: "per-call" } })).toBe(
      "echo · session per call",
    );
    expect(studyWorkload({ id: "http-route", params: { route: "/rest/time" } })).toBe("GET /rest/time");
    // A document is too large to say: the tool alone.
    expect(
      studyWorkload({
        id: "mcp-tool-call",
        params: { tool: "validate_document", arguments: { document: {} } },
      }),
    ).toBe("validate_document");
  });

  it("size each variant on this lab's servers and say its load, the published one's containers too", () => {
    const view = studyView(findStudy("io-tools")!, ["go", "node", "rust"]);
    expect(view.servers).toEqual(["rust", "go", "node"]);
    // Every row of the study is listed: the ones this lab runs, and the others with why not.
    const missing = view.rows.filter((r) => r.missing).map((r) => `${r.label}: ${r.missing}`);
    expect(missing).toContain("bun: this lab has no server bun");
    expect(missing).toContain("java: this lab has no server spring-ai");
    expect(missing).toContain("quarkus: this lab has no server quarkus");
    expect(missing.filter((m) => m.startsWith("java-native:"))).toHaveLength(1);
    expect(view.rows.find((r) => r.label === "rust")).toMatchObject({ server: "rust", missing: null });
    // 3 servers × 3 tools × 1 level × 1 round, (5 + 14 + 2 + 3) s each.
    expect(view.variants.quick).toMatchObject({ cells: 9, totalSec: 216 });
    expect(view.variants.quick.load).toBe("50 VUs · 14 s after 5 s warm-up · 1 round · local");
    // As published, the three tools are one mix: 3 servers × 1 workload × 3 rounds.
    expect(view.variants.published.cells).toBe(9);
    expect(view.workloads).toEqual([
      "mix search_products get_user_cart checkout · 10 calls per session",
      "search_products",
      "get_user_cart",
      "checkout",
    ]);
    expect(view.variants.published.load).toBe(
      "50 VUs · 5 min after 1 min warm-up · 3 rounds · docker (2 vCPU / 2048 MB)",
    );
  });
});
