import { randomUUID } from "node:crypto";
import { ILL_FORMED_MESSAGE, isWellFormedText, type TProblem } from "@perflab/contracts";
import { AppError } from "./errors";

const PROBLEM_TYPE = "application/problem+json";

export function problemResponse(problem: TProblem, extraHeaders: Record<string, string> = {}): Response {
  return Response.json(problem, {
    status: problem.status,
    headers: {
      ...extraHeaders,
      "content-type": PROBLEM_TYPE,
      // RFC 9110: a 401 says how to authenticate.
      ...(problem.status === 401 ? { "www-authenticate": 'Bearer realm="perflab"' } : {}),
      ...(problem.requestId ? { "x-request-id": problem.requestId } : {}),
    },
  });
}

export function jsonResponse(body: unknown, init: { status?: number; requestId: string }): Response {
  return Response.json(body, { status: init.status ?? 200, headers: { "x-request-id": init.requestId } });
}

/**
 * Most bytes a JSON request body may have. A matrix is a few KiB; its largest part, each scenario's
 * tool arguments, is capped at 64 KiB by its schema.
 */
export const JSON_BODY_MAX_BYTES = 1024 * 1024;
const BOM = "\uFEFF";

/**
 * The body as JSON, or a 400 naming "(body)" — the field path of the whole document; a 413 once it
 * passes `maxBytes`, before it is buffered whole. A leading byte order mark (U+FEFF, which some
 * Windows tools write before UTF-8) is dropped, as an upload's lines drop it.
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number = JSON_BODY_MAX_BYTES,
): Promise<unknown> {
  const text = await readTextBody(request, maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(text.startsWith(BOM) ? text.slice(1) : text);
  } catch {
    throw new AppError("bad_request", "The request body is not valid JSON.", [
      { field: "(body)", message: "must be valid JSON" },
    ]);
  }
  checkJsonValue(value);
  return value;
}

/** How deep a request body may nest: specs are a few levels deep; tool arguments a few more. */
export const MAX_JSON_DEPTH = 64;
const NUL = "\u0000";

const illFormed = (field: string, message: string) =>
  new AppError(
    "invalid",
    "The request holds an unpaired surrogate (\\ud800–\\udfff), which cannot be stored.",
    [{ field, message }],
  );

/**
 * Refuses, naming where, what valid JSON can hold but the lab cannot keep: a NUL character in a
 * string or key (Postgres text and jsonb refuse it), an unpaired surrogate ("\\ud800": no UTF-8
 * form, so jsonb refuses it and text would keep U+FFFD) and nesting deeper than MAX_JSON_DEPTH (which
 * would overflow the stack of whatever walks it later). Iterative, so the check itself cannot.
 */
export function checkJsonValue(root: unknown): void {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  const field = (path: (string | number)[]) => (path.length ? path.join(".") : "(body)");
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      if (value.includes(NUL)) {
        throw new AppError(
          "invalid",
          "The request holds a NUL character (\\u0000), which cannot be stored.",
          [{ field: field(path), message: "must not contain a NUL character" }],
        );
      }
      if (!isWellFormedText(value)) throw illFormed(field(path), ILL_FORMED_MESSAGE);
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (path.length >= MAX_JSON_DEPTH) {
      throw new AppError("invalid", `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`, [
        { field: field(path), message: `must nest at most ${MAX_JSON_DEPTH} levels deep` },
      ]);
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], path: [...path, i] });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key.includes(NUL)) {
        throw new AppError(
          "invalid",
          "The request holds a NUL character (\\u0000), which cannot be stored.",
          [{ field: field(path), message: "must not have a key with a NUL character" }],
        );
      }
      if (!isWellFormedText(key)) {
        throw illFormed(
          field(path),
          ILL_FORMED_MESSAGE.replace("must not contain", "must not have a key with"),
        );
      }
      stack.push({ value: item, path: [...path, key] });
    }
  }
}

/**
 * A request's query string as one value per parameter, each parameter refused by name when it is
 * given more than once or it or its value holds a NUL character.
 */
export function queryOf(request: Request): Record<string, string> {
  const params = new URL(request.url).searchParams;
  for (const [key, value] of params) refuseNul(key, value);
  // One value each: `?durationSec=30&durationSec=300` is a mistake to name, not a choice to make.
  const repeated = [...new Set(params.keys())].filter((key) => params.getAll(key).length > 1);
  if (repeated.length > 0) {
    throw new AppError(
      "invalid",
      "The query string is invalid.",
      repeated.map((key) => ({
        field: key,
        message: `is given ${params.getAll(key).length} times; give it once`,
      })),
    );
  }
  return Object.fromEntries(params.entries());
}

/** A 422 naming `field` when `value` (a query or path value) holds a NUL character. */
export function refuseNul(field: string, value: string): string {
  if (value.includes(NUL) || field.includes(NUL)) {
    throw new AppError("invalid", "The request holds a NUL character (\\u0000), which cannot be stored.", [
      { field: field.replaceAll(NUL, "\\u0000"), message: "must not contain a NUL character" },
    ]);
  }
  return value;
}

/**
 * Whether an error is Postgres refusing text it cannot store (a NUL byte: 22021 in text, 22P05 in
 * jsonb), wherever the driver and Prisma put its code: the last line of defence for input no
 * check above named, answered as the client's mistake rather than a 500.
 */
export function isUnstorableText(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 6; depth++) {
    const o = e as {
      code?: unknown;
      originalCode?: unknown;
      message?: unknown;
      cause?: unknown;
      meta?: unknown;
    };
    const codes = [o.code, o.originalCode, (o.meta as { code?: unknown } | undefined)?.code];
    if (codes.some((c) => c === "22021" || c === "22P05")) return true;
    if (
      typeof o.message === "string" &&
      /invalid byte sequence for encoding "UTF8": 0x00|unsupported Unicode escape sequence/.test(o.message)
    ) {
      return true;
    }
    e = o.cause;
  }
  return false;
}

/**
 * The body as text, refused with a 413 once it passes `maxBytes` (by its content-length, or while it
 * streams when it has none), so an oversized upload is never buffered whole.
 */
export async function readTextBody(request: Request, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    new AppError("too_large", `The body is larger than the limit of ${maxBytes} bytes.`, [
      { field: "(body)", message: `must be at most ${maxBytes} bytes` },
    ]);
  const declared = Number(request.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const HOST = /^([\w.-]+|\[[\da-f:.]+\])(:\d{1,5})?$/i;
const first = (value: string | null) => value?.split(",")[0]?.trim() || null;

/**
 * The origin the client reached us by: a proxy's forwarded host and scheme, else the Host header.
 * (Next's request.url says "localhost" whatever the client asked for.) Only the caller sees it.
 */
export function requestOrigin(request: Request): string {
  const url = new URL(request.url);
  const host = [first(request.headers.get("x-forwarded-host")), request.headers.get("host")].find(
    (h): h is string => !!h && HOST.test(h),
  );
  const proto = first(request.headers.get("x-forwarded-proto"));
  const scheme = proto === "http" || proto === "https" ? proto : url.protocol.slice(0, -1);
  return `${scheme}://${host ?? url.host}`;
}

/** A caller's own request id is echoed back only when it is short and plain. */
const REQUEST_ID = /^[\w.-]{1,64}$/;

/** The caller's x-request-id when short and plain, else a new one. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given && REQUEST_ID.test(given) ? given : randomUUID();
}

export type Handler<C> = (request: Request, context: C, requestId: string) => Promise<Response>;

/** Gives each request an id and turns every thrown error into one problem+json shape. */
export function withProblems<C>(handler: Handler<C>): (request: Request, context: C) => Promise<Response> {
  return async (request, context) => {
    const requestId = requestIdOf(request);
    try {
      return await handler(request, context, requestId);
    } catch (error) {
      if (error instanceof AppError) return problemResponse(error.toProblem(requestId), error.headers);
      if (isUnstorableText(error)) {
        return problemResponse(
          new AppError("invalid", "The request holds a NUL character (\\u0000), which cannot be stored.", [
            { field: "(request)", message: "must not contain a NUL character" },
          ]).toProblem(requestId),
        );
      }
      console.error(`[${requestId}] ${request.method} ${new URL(request.url).pathname}`, error);
      return problemResponse(
        new AppError("internal", "Something went wrong; see the server log.").toProblem(requestId),
      );
    }
  };
}
