/** Runs once when the server starts: importing env validates it, so a missing variable stops start-up. */
export async function register() {
  await import("./env");
}
