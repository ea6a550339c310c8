import { describe, expect, it } from "vitest";
import { parseCommand } from "./args.ts";

const parse = (...argv: string[]) => parseCommand(argv, {});

describe("perflab servers", () => {
  it("reads each action with its arguments", () => {
    expect(parse("servers", "list")).toMatchObject({ command: "servers", action: { action: "list" } });
    expect(parse("servers", "add", "mine.json")).toMatchObject({
      action: { action: "add", file: "mine.json" },
    });
    expect(parse("servers", "show", "mine")).toMatchObject({ action: { action: "show", server: "mine" } });
    expect(parse("servers", "update", "mine", "fields.json")).toMatchObject({
      action: { action: "update", server: "mine", file: "fields.json" },
    });
    expect(parse("servers", "rm", "mine")).toMatchObject({ action: { action: "rm", server: "mine" } });
  });

  it("refuses an unknown action or a wrong number of arguments, saying which", () => {
    expect(() => parse("servers")).toThrow(/servers takes list, add <file.json>/);
    expect(() => parse("servers", "delete", "mine")).toThrow(/got "delete mine"/);
    expect(() => parse("servers", "add")).toThrow("servers add takes 1 argument, got 0");
    expect(() => parse("servers", "update", "mine")).toThrow("servers update takes 2 arguments, got 1");
    expect(() => parse("servers", "list", "extra")).toThrow("servers list takes 0 arguments, got 1");
  });

  it("queues a study with servers beside its own only when given a study", () => {
    expect(parse("study", "payload-sweep", "--with", "mine")).toMatchObject({ with: ["mine"] });
    expect(() => parse("study", "--with", "mine")).toThrow("--with needs a study id");
  });
});
