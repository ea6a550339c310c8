import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
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

type ParseError = Error & { code?: string; rawPacket?: Buffer };

/**
 * A request Node's parser refuses before any handler runs (request line and headers past 16 KiB, a
 * method it does not know such as TRACK): Node answers a bare 431 or 400. Under /api the answer is
 * a problem naming what was wrong; null where the request line does not name an API path.
 */
export function parseErrorAnswer(error: ParseError): string | null {
  const line = error.rawPacket?.toString("latin1", 0, 4096).split("\r\n", 1)[0] ?? "";
  if (!isApiPath(line.split(" ")[1]?.split("?", 1)[0] ?? "")) return null;
  const [status, title, field, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [
          431,
          "Request header fields too large",
          "(headers)",
          "the request line and headers must stay under 16 KiB",
        ]
      : error.code === "HPE_INVALID_METHOD"
        ? [400, "Bad request", "(method)", "is not an HTTP method"]
        : [
            400,
            "Bad request",
            "(request)",
            `is not a valid HTTP/1.1 request (${error.code ?? error.message})`,
          ];
  const type = `urn:perflab:problem:${title.toLowerCase().replaceAll(" ", "-")}`;
  const body = JSON.stringify({ type, title, status, errors: [{ field, message }] });
  const headers = [
    ...SECURITY_HEADERS.map(({ key, value }) => `${key}: ${value}`),
    "content-type: application/problem+json",
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
  ];
  return `HTTP/1.1 ${status} ${title}\r\n${headers.join("\r\n")}\r\n\r\n${body}`;
}

const INSTALLED = Symbol.for("perflab.httpGate");

/** The address the request's connection came from, set here over anything the client sent (rate-limit.ts). */
export const PEER_HEADER = "x-perflab-peer";

/**
 * Puts `refuseUnroutable` in front of every HTTP server of this process (Next.js's own included,
 * which it does not expose), once, and stamps each request with its peer's address. Cheap for the
 * rest: a header and two string tests per request.
 */
export function installHttpGate(): void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: true };
  if (proto[INSTALLED]) return;
  proto[INSTALLED] = true;
  const emit = proto.emit;
  proto.emit = function gatedEmit(this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request") {
      const [req, res] = args as [IncomingMessage, ServerResponse];
      req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "";
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
    if (event === "clientError") {
      const [error, socket] = args as [ParseError, Socket & { _httpMessage?: { _headerSent?: boolean } }];
      // As Node checks before its own answer: no response of this connection has begun.
      const idle = socket.writable && !socket._httpMessage?._headerSent;
      const answer = idle ? parseErrorAnswer(error) : null;
      if (answer) {
        socket.end(answer);
        return true;
      }
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof proto.emit;
}
