import { describe, expect, it } from "vitest";
import {
  cellLooks,
  dashOf,
  LOOKS_PER_COLOUR,
  MAX_DISTINCT_ROUNDS,
  nthLook,
  repeatOpacity,
  repeatsOf,
  SERVER_HUES,
  serverColour,
  serverLooks,
  serverShade,
} from "./colours";

/** The repository's catalog as the web app reads it: every server followed by its variants. */
const catalog = [
  "bun",
  "bun:stateless",
  "bun:cluster",
  "go",
  "go:stateless",
  "java",
  "java:stateless",
  "node",
  "node:stateless",
  "node:cluster",
  "python",
  "python:stateless",
  "python:workers",
  "rust",
  "rust:stateless",
];

describe("server colours", () => {
  it("follow the server's place in the catalog, not in the run: the same on every run and page", () => {
    // go first in one run, second in another, or with a run tag (a comparison of runs): one colour.
    expect(serverColour(catalog, "go")).toBe("var(--server-1-0)");
    expect(serverColour(catalog, "rust")).toBe("var(--server-5-0)");
    expect(serverColour(catalog, "go · 3f2a9c1")).toBe(serverColour(catalog, "go"));
    const oneRun = serverLooks(catalog, ["go", "rust"]);
    const other = serverLooks(catalog, ["rust", "node", "go"]);
    expect(other.get("go")).toEqual(oneRun.get("go"));
    expect(other.get("rust")).toEqual(oneRun.get("rust"));
  });

  it("give every server of the catalog its own hue, and its variants tones of it", () => {
    const bases = ["bun", "go", "java", "node", "python", "rust"];
    expect(new Set(bases.map((b) => serverShade(catalog, b).hue)).size).toBe(bases.length);
    expect(serverShade(catalog, "node")).toEqual({ hue: 3, tone: 0 });
    expect(serverShade(catalog, "node:stateless")).toEqual({ hue: 3, tone: 1 });
    expect(serverShade(catalog, "node:cluster")).toEqual({ hue: 3, tone: 2 });
    const looks = catalog.map((name) => serverColour(catalog, name));
    expect(new Set(looks).size).toBe(catalog.length);
  });

  it("give a server the catalog does not know a hue it leaves free, the same every time", () => {
    const unknown = serverShade(catalog, "deno");
    expect(unknown.hue).toBeGreaterThanOrEqual(6);
    expect(unknown.hue).toBeLessThan(SERVER_HUES);
    expect(serverShade(catalog, "deno")).toEqual(unknown);
    expect(serverShade(catalog, "go:tuned").hue).toBe(serverShade(catalog, "go").hue);
    expect(serverShade(catalog, "go:tuned").tone).toBeGreaterThan(0);
    // Without a catalog (a manifest that does not read) every name still gets a colour.
    expect(serverColour([], "go")).toMatch(/^var\(--server-\d-0\)$/);
  });

  it("make a server's repeats (its runs in a comparison of runs) fainter, in its colour", () => {
    const looks = serverLooks(catalog, ["go · a", "rust · a", "go · b", "rust · b"]);
    expect(looks.get("go · b")!.colour).toBe(looks.get("go · a")!.colour);
    expect([looks.get("go · a")!.opacity, looks.get("go · b")!.opacity]).toEqual([1, repeatOpacity(1)]);
    expect(repeatOpacity(1)).toBeLessThan(1);
    expect(looks.get("rust · a")!.opacity).toBe(1);
    expect(
      repeatsOf([
        { key: "a", serverName: "go" },
        { key: "a", serverName: "go" },
      ]).get("a"),
    ).toBe(0);
  });

  it("colour the percentile chart's cells by server, a later round fainter (not another colour)", () => {
    const cells = [
      { id: "c0", serverName: "go", round: 1 },
      { id: "c1", serverName: "rust", round: 1 },
      { id: "c2", serverName: "go", round: 2 },
      { id: "c3", serverName: "rust", round: 2 },
    ];
    const looks = cellLooks(cells, catalog);
    expect(looks.get("c2")!.colour).toBe(looks.get("c0")!.colour);
    expect(looks.get("c3")!.colour).toBe(looks.get("c1")!.colour);
    expect(looks.get("c0")!.colour).not.toBe(looks.get("c1")!.colour);
    expect(looks.get("c0")!.colour).toBe(serverColour(catalog, "go"));
    expect([looks.get("c0")!.opacity, looks.get("c2")!.opacity]).toEqual([1, repeatOpacity(1)]);
  });

  it("give a server's load levels looks of their own in its colour, the lowest plain", () => {
    const cells = [
      { id: "c0", serverName: "go", round: 1, vus: 1 },
      { id: "c1", serverName: "go", round: 1, vus: 2 },
      { id: "c2", serverName: "rust", round: 1, vus: 1 },
      { id: "c3", serverName: "go", round: 1, vus: null, rate: 100 },
    ];
    const looks = cellLooks(cells, catalog);
    expect(looks.get("c1")!.colour).toBe(looks.get("c0")!.colour);
    expect(looks.get("c1")).not.toEqual(looks.get("c0"));
    expect(looks.get("c3")).not.toEqual(looks.get("c1"));
    expect(looks.get("c0")!.hatch).toBeNull();
    // The same level looks the same on every server: only the colour changes.
    expect({ ...looks.get("c2")!, colour: "" }).toEqual({ ...looks.get("c0")!, colour: "" });
  });

  it("never give two cells of one server the same look: 3 levels × 3 rounds × 2 runs", () => {
    const cells = ["go · a", "go · b"].flatMap((serverName) =>
      [1, 2, 3].flatMap((round) =>
        [1, 10, 100].map((vus) => ({ id: `${serverName} ${round} ${vus}`, serverName, round, vus })),
      ),
    );
    const looks = [...cellLooks(cells, catalog).values()].map((l) => JSON.stringify(l));
    expect(new Set(looks).size).toBe(cells.length);
  });
});

describe("repeats and rounds", () => {
  it("give each of 8 runs of one server a look of its own", () => {
    const names = Array.from({ length: 8 }, (_, i) => `go · run${i}`);
    const looks = serverLooks(catalog, names);
    expect(new Set(names.map((n) => JSON.stringify(looks.get(n)))).size).toBe(8);
    expect(new Set(names.map((n) => looks.get(n)!.colour)).size).toBe(1);
    expect(LOOKS_PER_COLOUR).toBeGreaterThanOrEqual(8);
    const all = Array.from({ length: LOOKS_PER_COLOUR }, (_, n) => JSON.stringify(nthLook(n)));
    expect(new Set(all).size).toBe(LOOKS_PER_COLOUR);
  });

  it("give each of 20 rounds a dash of its own, round 1 solid", () => {
    const dashes = Array.from({ length: 20 }, (_, i) => dashOf(i + 1));
    expect(dashes[0]).toBeUndefined();
    expect(new Set(dashes).size).toBe(20);
    expect(MAX_DISTINCT_ROUNDS).toBe(20);
  });
});
