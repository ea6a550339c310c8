import { randomUUID } from "node:crypto";
import type { TProblem } from "@perflab/contracts";
import { AppError } from "./errors";

const PROBLEM_TYPE = "application/problem+json";

export function problemResponse(problem: TProblem): Response {
  return Response.json(problem, {
    status: problem.status,
    headers: {
      "content-type": PROBLEM_TYPE,
      ...(problem.requestId ? { "x-request-id": problem.requestId } : {}),
    },
  });
}

export function jsonResponse(body: unknown, init: { status?: number; requestId: string }): Response {
  return Response.json(body, { status: init.status ?? 200, headers: { "x-request-id": init.requestId } });
}

/** The body as JSON, or a 400 naming "(body)" — the field path of the whole document. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("bad_request", "The request body is not valid JSON.", [
      { field: "(body)", message: "must be valid JSON" },
    ]);
  }
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
