/**
 * The variables `./scripts/up.sh` reads (through scripts/stack.ts), with their defaults and meaning,
 * for the configuration page. The apps' own variables are declared in their env schemas.
 */
export const stackEnv = [
  { name: "PERFLAB_PORT", default: "`3000`", description: "the web app's port" },
  {
    name: "PERFLAB_HOST",
    default: "`127.0.0.1`",
    description:
      "the address the web app binds to; on loopback the quick start sets `PERFLAB_ALLOWED_HOSTS` to `127.0.0.1,localhost,[::1]` unless it is set, bound to any other (`0.0.0.0`) it leaves it unset",
  },
  { name: "PERFLAB_PG_PORT", default: "`54329`", description: "the embedded Postgres's port" },
  { name: "PERFLAB_REDIS_PORT", default: "`63790`", description: "the embedded Redis's port" },
  {
    name: "PERFLAB_DATA_DIR",
    default: "`.perflab/data`",
    description:
      "the embedded Postgres's and Redis's data, and `stack.json`: the pids of the services it runs, so a start after a crash or `kill -9` stops what the dead one left running before it starts its own",
  },
] as const;
