// perflab's Fastify reference server: REST only (CONTRACT.md section 7, no MCP), Fastify + pg as
// the REST study ran Node.
import { type App, startApp } from "./app.js";

function fail(reason: string): never {
  console.error(`fatal: ${reason}`);
  process.exit(1);
}

const rawPort = process.env.PORT || "8080";
const port = Number(rawPort);
if (!/^[0-9]+$/.test(rawPort) || port < 1 || port > 65535) fail(`PORT must be 1..65535, got "${rawPort}"`);
// A REST-only server has no MCP mode to switch: asking for one is a configuration error.
for (const name of ["MCP_STATELESS", "MCP_JSON_RESPONSE"]) {
  const v = process.env[name] ?? "";
  if (v !== "" && v !== "0") fail(`${name}=${JSON.stringify(v)}: this server serves no MCP`);
}

const starting: Promise<App> = startApp(port);
// The handler goes in before the start line: a SIGTERM sent the moment the line is read must be a
// graceful stop, not the default action (exit by signal). A signal during startup waits for it.
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  starting.then(
    async (app) => {
      await app.close();
      process.exit(0);
    },
    () => process.exit(1),
  );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

const app = await starting.catch((err: Error) => fail(`cannot listen on 127.0.0.1:${port}: ${err.message}`));
console.log(`perflab fastify server listening on http://127.0.0.1:${app.port} (workers=1)`);
