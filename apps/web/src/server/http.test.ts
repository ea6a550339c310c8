import { describe, expect, it } from "vitest";
import { AppError } from "./errors";
import { JSON_BODY_MAX_BYTES, readJsonBody } from "./http";

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("http://perflab.test/api/v1/matrices", {
    method: "POST",
    body,
    headers,
    duplex: "half",
  } as RequestInit);

/** A body streamed in 64 KiB chunks, without a content-length. */
function streamed(bytes: number): ReadableStream<Uint8Array> {
  let left = bytes;
  return new ReadableStream({
    pull(controller) {
      if (left <= 0) return controller.close();
      const size = Math.min(left, 64 * 1024);
      left -= size;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

describe("readJsonBody", () => {
  it("caps a JSON body at 1 MiB with a 413 naming the body", async () => {
    expect(JSON_BODY_MAX_BYTES).toBe(1024 * 1024);
    const json = JSON.stringify({ arguments: "x".repeat(JSON_BODY_MAX_BYTES) });
    const error = await rejection(readJsonBody(post(json, { "content-type": "application/json" })));
    expect(error.status).toBe(413);
    expect(error.errors).toEqual([
      { field: "(body)", message: `must be at most ${JSON_BODY_MAX_BYTES} bytes` },
    ]);
  });

  it("refuses an oversized body without a content-length while it streams", async () => {
    const error = await rejection(readJsonBody(post(streamed(JSON_BODY_MAX_BYTES + 1))));
    expect(error.code).toBe("too_large");
  });

  it("reads a body up to the limit, and names invalid JSON with a 400", async () => {
    const pad = " ".repeat(JSON_BODY_MAX_BYTES - 8);
    expect(await readJsonBody(post(`${pad}{"a": 1}`))).toEqual({ a: 1 });
    const error = await rejection(readJsonBody(post("{oops")));
    expect([error.status, error.errors]).toEqual([400, [{ field: "(body)", message: "must be valid JSON" }]]);
  });
});
