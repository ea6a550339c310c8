/**
 * Runs once when the server starts. Importing env validates it, and a server without its database
 * or Redis is of no use, so it exits instead of failing every request later.
 */
export async function register() {
  try {
    await import("./env");
  } catch {
    // createEnv has already printed which variables are missing or invalid.
    process.exit(1);
  }
  // Requests Next.js cannot answer itself (TRACE, dot segments) are answered before it sees them.
  if (process.env.NEXT_RUNTIME === "nodejs") (await import("./server/http-gate")).installHttpGate();
}
