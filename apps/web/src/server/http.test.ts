import { describe, expect, it } from "vitest";
import { AppError } from "./errors";
import {
  checkJsonValue,
  isUnstorableText,
  JSON_BODY_MAX_BYTES,
  MAX_JSON_DEPTH,
  queryOf,
  readJsonBody,
} from "./http";

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

  it("reads a body that starts with a UTF-8 byte order mark, as a Windows tool may write it", async () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"a": 1}')]);
    expect(await readJsonBody(post(bom))).toEqual({ a: 1 });
    // Only one, and only at the start: anything else is still not JSON.
    const twice = await rejection(readJsonBody(post("\uFEFF\uFEFF{}")));
    expect(twice.status).toBe(400);
  });
});

describe("what valid JSON holds but the lab cannot keep", () => {
  it("names the field of a NUL character, in a value or a key", async () => {
    const value = await rejection(
      readJsonBody(post(JSON.stringify({ scenarios: [{ params: { arguments: { message: "a\u0000b" } } }] }))),
    );
    expect([value.status, value.errors]).toEqual([
      422,
      [{ field: "scenarios.0.params.arguments.message", message: "must not contain a NUL character" }],
    ]);
    const key = await rejection(readJsonBody(post('{"name": {"x\\u0000": 1}}')));
    expect(key.errors).toEqual([{ field: "name", message: "must not have a key with a NUL character" }]);
  });

  it("names the field of an unpaired surrogate, which has no UTF-8 form, in a value or a key", async () => {
    const value = await rejection(readJsonBody(post('{"name": "ok", "git": {"branch": "a\\ud800b"}}')));
    expect([value.status, value.errors]).toEqual([
      422,
      [{ field: "git.branch", message: "must not contain an unpaired surrogate (\\ud800–\\udfff)" }],
    ]);
    const low = await rejection(readJsonBody(post('["\\udc00"]')));
    expect(low.errors?.[0]?.field).toBe("0");
    const key = await rejection(readJsonBody(post('{"tags": {"\\udbff": 1}}')));
    expect(key.errors).toEqual([
      { field: "tags", message: "must not have a key with an unpaired surrogate (\\ud800–\\udfff)" },
    ]);
    // A pair (an emoji, escaped or not) is one character and stays.
    expect(await readJsonBody(post('{"name": "\\ud83d\\ude80 \u{1F680}"}'))).toEqual({
      name: "\u{1F680} \u{1F680}",
    });
  });

  it("refuses nesting past 64 levels, naming where, without overflowing a stack", async () => {
    expect(() => checkJsonValue(JSON.parse(`${"[".repeat(64)}${"]".repeat(64)}`))).not.toThrow();
    const deep = `{"arguments": ${"[".repeat(400_000)}${"]".repeat(400_000)}}`;
    const error = await rejection(readJsonBody(post(deep)));
    expect(error.status).toBe(422);
    expect(error.errors?.[0]?.field).toBe(`arguments${".0".repeat(MAX_JSON_DEPTH - 1)}`);
  });

  it("names a query parameter holding a NUL character", () => {
    const request = new Request("http://perflab.test/api/v1/runs?limit=5&gitRepo=a%00b");
    const error = (() => {
      try {
        queryOf(request);
      } catch (e) {
        return e as AppError;
      }
      throw new Error("expected a refusal");
    })();
    expect([error.status, error.errors]).toEqual([
      422,
      [{ field: "gitRepo", message: "must not contain a NUL character" }],
    ]);
    expect(queryOf(new Request("http://perflab.test/x?limit=5&status=failed"))).toEqual({
      limit: "5",
      status: "failed",
    });
  });

  it("names a query parameter given more than once rather than pick one of its values", () => {
    let error: AppError | null = null;
    try {
      queryOf(new Request("http://perflab.test/x?limit=5&status=failed&limit=7&status=running&limit=9"));
    } catch (e) {
      error = e as AppError;
    }
    expect([error?.status, error?.errors]).toEqual([
      422,
      [
        { field: "limit", message: "is given 3 times; give it once" },
        { field: "status", message: "is given 2 times; give it once" },
      ],
    ]);
  });

  it("knows Postgres refusing a NUL byte wherever its code sits", () => {
    expect(isUnstorableText({ cause: { originalCode: "22021" } })).toBe(true);
    expect(isUnstorableText({ code: "P2010", meta: { code: "22P05" } })).toBe(true);
    expect(isUnstorableText(new Error('invalid byte sequence for encoding "UTF8": 0x00'))).toBe(true);
    expect(isUnstorableText(new Error("connection refused"))).toBe(false);
  });
});
