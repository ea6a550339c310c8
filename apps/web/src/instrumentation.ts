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
}
