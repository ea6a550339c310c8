import { cookies } from "next/headers";
import { type Caller, callerOf, TOKEN_COOKIE, verifySecret } from "./auth";
import { getDb } from "./db";
import { AppError } from "./errors";

/**
 * The dashboard user's token, for server components: the sign-in cookie checked, or null when
 * there is none or it no longer works (revoked, expired) — pages then render as for anyone.
 */
export async function pageCaller(): Promise<Caller | null> {
  const secret = (await cookies()).get(TOKEN_COOKIE)?.value;
  if (!secret) return null;
  try {
    return callerOf(await verifySecret(getDb(), secret, "cookie"));
  } catch (error) {
    if (error instanceof AppError && error.code === "unauthorized") return null;
    throw error;
  }
}
