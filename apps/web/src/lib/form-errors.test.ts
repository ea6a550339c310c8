import { describe, expect, it } from "vitest";
import { errorsFor, unclaimedErrors } from "./form-errors";

const errors = [
  { field: "loadLevels.0.vus", message: "must be at least 1" },
  { field: "scenarios.0.params.arguments", message: "must be a JSON object" },
  { field: "scenarios.0.params.arguments.n", message: "too big" },
  { field: "scenarios.0.params.tool", message: "choose a tool" },
  { field: "scenarios.0.params.tool", message: "choose a tool" },
  { field: "(body)", message: "must be valid JSON" },
];

describe("form errors", () => {
  it("gives a control its exact paths and everything under its prefix", () => {
    expect(errorsFor(errors, { exact: ["loadLevels.0.vus"] })).toEqual([errors[0]]);
    expect(
      errorsFor(errors, { exact: [], prefix: "scenarios.0.params.arguments" }).map((e) => e.field),
    ).toEqual(["scenarios.0.params.arguments", "scenarios.0.params.arguments.n"]);
  });

  it("renders a repeated message once per path", () => {
    expect(errorsFor(errors, { exact: ["scenarios.0.params.tool"] })).toEqual([
      { field: "scenarios.0.params.tool", message: "choose a tool" },
    ]);
  });

  it("leaves errors no control owns for the form-level list", () => {
    const matches = [
      { exact: ["loadLevels.0.vus", "scenarios.0.params.tool"] },
      { exact: [], prefix: "scenarios.0.params.arguments" },
    ];
    expect(unclaimedErrors(errors, matches)).toEqual([{ field: "(body)", message: "must be valid JSON" }]);
  });
});
