import { describe, expect, it } from "vitest";
import { waitingMessage } from "./waiting";

describe("waitingMessage", () => {
  it("gives a queued cell's own reason alone when it has one", () => {
    const message = waitingMessage({ status: "queued", stage: "waiting for server builds to end: rust" });
    expect(message).toBe("Queued, waiting for server builds to end: rust.");
    expect(message).not.toMatch(/one cell at a time/);
  });

  it("says a queued cell without a reason waits its turn on its host", () => {
    expect(waitingMessage({ status: "queued", stage: null })).toMatch(
      /^Queued: a host measures one cell at a time/,
    );
  });

  it("says a running cell waits for its first second, and a finished one recorded none", () => {
    expect(waitingMessage({ status: "running", stage: "waiting for health" })).toBe(
      "Waiting for the first second of load (waiting for health)…",
    );
    expect(waitingMessage({ status: "failed", stage: null })).toBe(
      "No metric points were recorded for this cell.",
    );
  });
});
