import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { AppError } from "./errors";
import { problemResponse, requestIdOf } from "./http";
import { isApiPath, pageMethodNotAllowed, refuseApiRequest } from "./refusals";
import { SECURITY_HEADERS } from "./security-headers";

/** ".", "..", and their percent-encoded spellings, which URL parsing resolves away. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
const MAYBE_DOT = /\.|%2e/i;

/**
 * What the middleware cannot see or answer, judged on the request line as it arrived:
 * - TRACE: the Fetch API refuses to build a Request with it, so Next.js fails before the middleware
 *   runs and answers a 500 page.
 * - a dot segment (`/api/v1/runs/%2e%2e`): the middleware's URL has it resolved away (`/api/v1/`),
 *   while the router takes it for a run id and answers its HTML 404. Pages keep that 404 page.
 * Null for every other request, which Next.js answers.
 */
export function refuseUnroutable(method: string, rawUrl: string, headers: Headers): Response | null {
  const rawPath = rawUrl.split("?", 1)[0] ?? "/";
  const api = isApiPath(rawPath);
  const dot = rawPath.split("/").find((segment) => DOT_SEGMENT.test(segment));
  const request = { url: `http://localhost${rawPath}`, method, headers };
  if (dot !== undefined && api) {
    const error = new AppError("bad_request", `The path ${rawPath} has a dot segment.`, [
      { field: "(path)", message: `"${dot}" is not a path segment the API has` },
    ]);
    return problemResponse(error.toProblem(requestIdOf(request as Request)));
  }
  if (method !== "TRACE") return null;
  return api ? refuseApiRequest(request) : pageMethodNotAllowed(method);
}

async function send(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = Object.fromEntries(
    SECURITY_HEADERS.map(({ key, value }) => [key.toLowerCase(), value]),
  );
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, { ...headers, "content-length": String(body.length) });
  res.end(req.method === "HEAD" ? undefined : body);
}

const INSTALLED = Symbol.for("perflab.httpGate");

/**
 * Puts `refuseUnroutable` in front of every HTTP server of this process (Next.js's own included,
 * which it does not expose), once. Cheap for the rest: two string tests per request.
 */
export function installHttpGate(): void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: true };
  if (proto[INSTALLED]) return;
  proto[INSTALLED] = true;
  const emit = proto.emit;
  proto.emit = function gatedEmit(this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const [req, res] = args as [IncomingMessage, ServerResponse];
      const url = req.url ?? "/";
      if (req.method === "TRACE" || MAYBE_DOT.test(url)) {
        const headers = new Headers();
        for (const [key, value] of Object.entries(req.headers)) {
          if (typeof value === "string") headers.set(key, value);
        }
        const refusal = refuseUnroutable(req.method ?? "GET", url, headers);
        if (refusal) {
          send(req, res, refusal).catch(() => res.destroy());
          return true;
        }
      }
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof proto.emit;
}
