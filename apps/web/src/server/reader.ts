import { authenticateReader } from "./auth";
import { getDb } from "./db";
import { type Handler, withProblems } from "./http";

/**
 * `withProblems` for the routes anyone may read (runs, cells, comparisons, exports, servers,
 * workers, the OpenAPI document): a credential that is sent is still checked before anything is
 * read, so a CI job with a wrong, revoked or expired token hears a 401 naming the Authorization
 * header on its first read, not on its first upload. A dashboard cookie whose token lapsed reads
 * as no one, as the pages treat it.
 */
export function withReader<C>(handler: Handler<C>): (request: Request, context: C) => Promise<Response> {
  return withProblems<C>(async (request, context, requestId) => {
    await authenticateReader(getDb(), request);
    return handler(request, context, requestId);
  });
}
