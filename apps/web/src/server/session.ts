import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { env } from "../env";
import { signInPath } from "../lib/sign-in";
import { type Caller, callerOf, readScope, TOKEN_COOKIE, verifySecret } from "./auth";
import { getDb } from "./db";
import { AppError } from "./errors";

export { pathWithQuery } from "../lib/sign-in";

/**
 * The dashboard user's token, for server components: the sign-in cookie checked, or null when
 * there is none or it no longer works (revoked, expired) — pages then render as for anyone. Read
 * once per request, however many of the page's parts (header, metadata, body) ask.
 */
export const pageCaller = cache(async (): Promise<Caller | null> => {
  const secret = (await cookies()).get(TOKEN_COOKIE)?.value;
  if (!secret) return null;
  try {
    return callerOf(await verifySecret(getDb(), secret, "cookie", env.PERFLAB_ACCESS));
  } catch (error) {
    if (error instanceof AppError && error.code === "unauthorized") return null;
    throw error;
  }
});

/**
 * For pages that show the lab's runs and results: who reads (as `pageCaller`) and the workspace
 * its reads keep to (see `readScope`). In a private lab a visitor who is not signed in, or whose
 * sign-in lapsed, is sent to the sign-in form, which comes back to `path` afterwards.
 */
export async function pageReader(
  path: string,
): Promise<{ caller: Caller | null; workspaceId: string | null }> {
  const caller = await pageCaller();
  if (!caller && env.PERFLAB_ACCESS === "private") redirect(signInPath(path));
  return { caller, workspaceId: readScope(caller, env.PERFLAB_ACCESS) };
}
