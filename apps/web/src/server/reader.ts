import { env } from "../env";
import { authenticateReader, authorizeRead, type Caller, readScope } from "./auth";
import { getDb } from "./db";
import { withProblems } from "./http";

/** Who reads: the token's caller (or null), and the workspace its reads are limited to (or null). */
export interface Reader {
  caller: Caller | null;
  /** Set in a private lab: runs of other workspaces are "not found" and left out of lists. */
  workspaceId: string | null;
}

export type ReaderHandler<C> = (
  request: Request,
  context: C,
  requestId: string,
  reader: Reader,
) => Promise<Response>;

/**
 * `withProblems` for the routes that read (runs, cells, comparisons, exports, servers, workers): a
 * credential that is sent is still checked before anything is read, so a CI job with a wrong,
 * revoked or expired token hears a 401 naming the Authorization header on its first read, not on
 * its first upload. A dashboard cookie whose token lapsed reads as no one, as the pages treat it.
 * In a private lab no one is refused with a 401, and the handler gets the caller's workspace.
 * `anyone` keeps a route readable without a token in every lab (the OpenAPI document).
 */
export function withReader<C>(
  handler: ReaderHandler<C>,
  { anyone = false }: { anyone?: boolean } = {},
): (request: Request, context: C) => Promise<Response> {
  return withProblems<C>(async (request, context, requestId) => {
    const access = env.PERFLAB_ACCESS;
    const caller = anyone
      ? await authenticateReader(getDb(), request, access)
      : await authorizeRead(getDb(), request, access);
    return handler(request, context, requestId, { caller, workspaceId: readScope(caller, access) });
  });
}
