import { randomUUID } from "node:crypto";
import type { TProblem } from "@perflab/contracts";
import { AppError } from "./errors";

const PROBLEM_TYPE = "application/problem+json";

export function problemResponse(problem: TProblem): Response {
  return Response.json(problem, {
    status: problem.status,
    headers: {
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

/**
 * The body as JSON, or a 400 naming "(body)" — the field path of the whole document; a 413 once it
 * passes `maxBytes`, before it is buffered whole.
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number = JSON_BODY_MAX_BYTES,
): Promise<unknown> {
  const text = await readTextBody(request, maxBytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("bad_request", "The request body is not valid JSON.", [
      { field: "(body)", message: "must be valid JSON" },
    ]);
  }
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

type Handler<C> = (request: Request, context: C, requestId: string) => Promise<Response>;

/** Gives each request an id and turns every thrown error into one problem+json shape. */
export function withProblems<C>(handler: Handler<C>): (request: Request, context: C) => Promise<Response> {
  return async (request, context) => {
    const given = request.headers.get("x-request-id");
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    try {
      return await handler(request, context, requestId);
    } catch (error) {
      if (error instanceof AppError) return problemResponse(error.toProblem(requestId));
      console.error(`[${requestId}] ${request.method} ${new URL(request.url).pathname}`, error);
      return problemResponse(
        new AppError("internal", "Something went wrong; see the server log.").toProblem(requestId),
      );
    }
  };
}
