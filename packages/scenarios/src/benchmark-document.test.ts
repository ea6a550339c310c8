import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { benchmarkDocument } from "./benchmark-document.ts";
import { defaultToolArguments } from "./index.ts";

describe("the validate_document default", () => {
  it("is the contract's benchmark document, byte for byte", () => {
    const file = path.resolve(import.meta.dirname, "../../../servers/contract/vectors.json");
    const vectors = JSON.parse(readFileSync(file, "utf8")) as {
      tools: { name: string; arguments: { document: unknown } }[];
    };
    const vector = vectors.tools.find((v) => v.name === "validate_document benchmark document");
    expect(vector).toBeDefined();
    expect(benchmarkDocument).toEqual(vector!.arguments.document);
    expect(defaultToolArguments.validate_document).toEqual({ document: benchmarkDocument });
  });
});
