import { describe, expect, it } from "vitest";
import { progressView, succeededCells } from "./progress";

describe("a run's progress bar", () => {
  it("fills with the cells done while the run goes on, the running cells' share too", () => {
    expect(
      progressView({ status: "running", total: 4, done: 1, failed: 0, succeeded: 1, progress: 1.5 }),
    ).toEqual({
      value: 1.5,
      label: "1/4",
      name: "Cells done",
      detail: "1 of 4 cells done",
      tone: "sky",
    });
    const failing = progressView({ status: "running", total: 4, done: 2, failed: 1, succeeded: 1 });
    expect([failing.value, failing.tone, failing.detail]).toEqual([
      2,
      "amber",
      "2 of 4 cells done, 1 failed",
    ]);
  });

  it("is full for a run whose every cell succeeded", () => {
    const view = progressView({ status: "succeeded", total: 3, done: 3, failed: 0, succeeded: 3 });
    expect([view.value, view.label, view.tone]).toEqual([3, "3/3", "sky"]);
  });

  it("shows a cancelled run's cells that never ran as missing, in the grey of its badge", () => {
    // Cancelled before its only cell ran: done (1/1) for the counters, nothing measured.
    const view = progressView({ status: "cancelled", total: 1, done: 1, failed: 0, succeeded: 0 });
    expect(view).toEqual({
      value: 0,
      label: "0/1",
      name: "Cells with a result",
      detail: "0 of 1 cell with a result, 1 cancelled",
      tone: "zinc",
    });
    const halfway = progressView({ status: "cancelled", total: 4, done: 4, failed: 0, succeeded: 2 });
    expect([halfway.value, halfway.label, halfway.detail]).toEqual([
      2,
      "2/4",
      "2 of 4 cells with a result, 2 cancelled",
    ]);
  });

  it("counts only the cells with a result of a failed or partial run, in the tone of its badge", () => {
    const failed = progressView({ status: "failed", total: 2, done: 2, failed: 2, succeeded: 0 });
    expect([failed.value, failed.label, failed.tone, failed.detail]).toEqual([
      0,
      "0/2",
      "rose",
      "0 of 2 cells with a result, 2 failed",
    ]);
    const partial = progressView({ status: "partial", total: 4, done: 4, failed: 1, succeeded: 3 });
    expect([partial.value, partial.label, partial.tone]).toEqual([3, "3/4", "amber"]);
  });

  it("counts the cells that succeeded", () => {
    expect(succeededCells([{ status: "succeeded" }, { status: "cancelled" }, { status: "failed" }])).toBe(1);
  });
});
