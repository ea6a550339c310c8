import pino from "pino";
import { describe, expect, it } from "vitest";
import { isTransientDbError, withDbRetry } from "./db-retry.ts";

const log = pino({ level: "silent" });

describe("a database that does not answer", () => {
  it("is told from a statement the database refused", () => {
    expect(isTransientDbError(new Error("Can't reach database server at 127.0.0.1:5432"))).toBe(true);
    expect(isTransientDbError(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(
      isTransientDbError(new Error("wrapped", { cause: new Error("Connection terminated unexpectedly") })),
    ).toBe(true);
    expect(isTransientDbError(new Error("terminating connection due to administrator command"))).toBe(true);
    expect(isTransientDbError(new Error("the database system is starting up"))).toBe(true);
    expect(
      isTransientDbError(new Error('violates foreign key constraint "metric_points_cell_id_fkey"')),
    ).toBe(false);
    expect(isTransientDbError(new Error("Unique constraint failed"))).toBe(false);
    expect(isTransientDbError(Object.assign(new Error("x"), { code: "08006" }))).toBe(true);
    expect(isTransientDbError(Object.assign(new Error("x"), { code: "57P01" }))).toBe(true);
    // A number in a message is no SQLSTATE.
    expect(isTransientDbError(new Error("value 08123 out of range for type smallint"))).toBe(false);
    expect(isTransientDbError(Object.assign(new Error("x"), { code: "23503" }))).toBe(false);
  });

  it("is retried until it answers; a refused statement throws at once", async () => {
    let calls = 0;
    const result = await withDbRetry(
      "a write",
      async () => {
        calls++;
        if (calls < 3) throw new Error("Can't reach database server");
        return "written";
      },
      { log, retryMs: 5_000 },
    );
    expect([result, calls]).toEqual(["written", 3]);

    calls = 0;
    const refused = withDbRetry(
      "a write",
      async () => {
        calls++;
        throw new Error("violates foreign key constraint");
      },
      { log, retryMs: 5_000 },
    );
    await expect(refused).rejects.toThrow(/foreign key/);
    expect(calls).toBe(1);
  });

  it("fails after the retry window, naming what was not written and the setting", async () => {
    const started = Date.now();
    const outage = withDbRetry(
      "seconds 3–4 of the cell",
      async () => {
        throw new Error("Can't reach database server");
      },
      { log, retryMs: 600 },
    );
    await expect(outage).rejects.toThrow(
      /did not answer for \d+ s while writing seconds 3–4 of the cell \(PERFLAB_DB_RETRY_MS=600\)/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
  });
});
