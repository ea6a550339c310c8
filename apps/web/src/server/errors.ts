import type { TProblem } from "@perflab/contracts";

export type AppErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "invalid"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "too_large"
  | "unsupported_media_type"
  | "too_many_requests"
  | "unavailable"
  | "internal";

const statusOf: Record<AppErrorCode, { status: number; title: string }> = {
  bad_request: { status: 400, title: "Bad request" },
  unauthorized: { status: 401, title: "Unauthorized" },
  forbidden: { status: 403, title: "Forbidden" },
  invalid: { status: 422, title: "Invalid input" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  conflict: { status: 409, title: "Conflict" },
  too_large: { status: 413, title: "Content too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  too_many_requests: { status: 429, title: "Too many requests" },
  unavailable: { status: 503, title: "Service unavailable" },
  internal: { status: 500, title: "Internal server error" },
};

/** The one error operations throw; route handlers turn it into an RFC 9457 problem. */
export class AppError extends Error {
  readonly code: AppErrorCode;
  readonly errors: TProblem["errors"];
  /** Headers the answer carries besides the problem's own (a 429's Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    code: AppErrorCode,
    message: string,
    errors?: TProblem["errors"],
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.errors = errors;
    this.headers = headers;
  }

  get status(): number {
    return statusOf[this.code].status;
  }

  toProblem(requestId: string): TProblem {
    const { status, title } = statusOf[this.code];
    return {
      type: `urn:perflab:problem:${this.code.replaceAll("_", "-")}`,
      title,
      status,
      detail: this.message,
      requestId,
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}
