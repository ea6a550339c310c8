import { describe, expect, it } from "vitest";
import { parseCommand, usage } from "./args.ts";

describe("perflab study's rounds", () => {
  it("replaces the study's rounds with --rounds, and makes them adaptive with --max-rounds and --max-minutes", () => {
    expect(parseCommand(["study", "io-tools", "--quick", "--rounds", "4"], {})).toMatchObject({
      study: { id: "io-tools" },
      rounds: 4,
    });
    const adaptive = parseCommand(
      ["study", "io-tools", "--quick", "--rounds", "2", "--max-rounds", "6", "--max-minutes", "30"],
      {},
    );
    expect(adaptive).toMatchObject({ rounds: 2, adaptive: { maxRounds: 6, maxMinutes: 30 } });
    expect(parseCommand(["study", "io-tools", "--max-rounds", "6"], {})).toMatchObject({
      adaptive: { maxRounds: 6 },
    });
    // Nothing given is nothing changed: the spec keeps the study's own rounds.
    for (const key of ["rounds", "adaptive"])
      expect(parseCommand(["study", "io-tools", "--quick"], {})).not.toHaveProperty(key);
  });

  it("refuses the rounds flags as run does, and with the list", () => {
    const refuse = (argv: string[], message: RegExp) => expect(() => parseCommand(argv, {})).toThrow(message);
    refuse(
      ["study", "io-tools", "--max-minutes", "30"],
      /--max-minutes bounds adaptive rounds: give it with --max-rounds/,
    );
    refuse(["study", "io-tools", "--max-rounds", "many"], /--max-rounds must be a number/);
    refuse(["study", "io-tools", "--rounds", "two"], /--rounds must be a number/);
    refuse(["study", "--max-rounds", "6"], /--max-rounds needs a study id/);
    refuse(["study", "--list", "--rounds", "2"], /--rounds needs a study id/);
  });

  it("documents the same adaptive flags as run", () => {
    const adaptiveLines = (text: string) =>
      text.split("\n").filter((l) => /--max-(rounds|minutes) </.test(l));
    expect(adaptiveLines(usage.study)).toHaveLength(2);
    expect(adaptiveLines(usage.study)).toEqual(adaptiveLines(usage.run));
    expect(usage.study).toMatch(/--rounds <n> {12}rounds of every cell instead of the study's/);
  });
});
