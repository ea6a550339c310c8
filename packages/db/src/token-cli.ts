// pnpm -s token create --name <name> [--expires-in-days <n>] [--role admin|member] | list | revoke <id> | keep <id>
// Token administration on the lab's own machine, straight in its database (DATABASE_URL, else the
// embedded quick start's Postgres). This is how a lab with PERFLAB_ACCESS=token gets its first
// token, an admin by default (whoever runs this owns the lab's database anyway); later ones can be
// made in the dashboard (Tokens) with an admin token in hand.
import { parseArgs } from "node:util";
import { createApiToken, createDb, ensureDefaultWorkspace, keepApiToken } from "./index.ts";

const USAGE = `usage: pnpm -s token create --name <name> [--expires-in-days <1-365>] [--role admin|member]
       pnpm -s token list
       pnpm -s token revoke <id>
       pnpm -s token keep <id>     (a token minted anonymously in an open lab: valid in every mode)`;

function fail(message: string): never {
  console.error(`perflab token: ${message}\n${USAGE}`);
  process.exit(2);
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      name: { type: "string" },
      "expires-in-days": { type: "string" },
      role: { type: "string", default: "admin" },
    },
  });
}
try {
  parsed = parse();
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
const [command, ...rest] = parsed.positionals;
const databaseUrl =
  process.env.DATABASE_URL ||
  `postgresql://postgres:postgres@127.0.0.1:${process.env.PERFLAB_PG_PORT || 54329}/perflab`;

const db = createDb(databaseUrl, { poolSize: 1 });
try {
  if (command === "create") {
    const name = parsed.values.name?.trim();
    if (!name) fail("--name is required");
    if (name.length > 100) fail("--name must be at most 100 characters");
    const daysText = parsed.values["expires-in-days"];
    const days = daysText === undefined ? undefined : Number(daysText);
    if (days !== undefined && !(Number.isInteger(days) && days >= 1 && days <= 365)) {
      fail("--expires-in-days must be a whole number from 1 to 365");
    }
    const role = parsed.values.role;
    if (role !== "admin" && role !== "member") fail('--role must be "admin" or "member"');
    if (rest.length) fail(`unexpected argument "${rest[0]}"`);
    const workspace = await ensureDefaultWorkspace(db);
    const { token, secret } = await createApiToken(db, {
      workspaceId: workspace.id,
      name,
      expiresAt: days ? new Date(Date.now() + days * 86_400_000) : null,
      role,
    });
    console.error(
      `Created ${token.role} token "${token.name}" (${token.id})${token.expiresAt ? `, expires ${token.expiresAt.toISOString()}` : ""}.\n` +
        "This is the only time it is shown: keep it in your CI's secrets (PERFLAB_TOKEN).",
    );
    // The secret alone on stdout, so `TOKEN=$(pnpm -s token create --name ci)` works.
    console.log(secret);
  } else if (command === "list") {
    const tokens = await db.apiToken.findMany({ orderBy: { createdAt: "desc" } });
    const now = new Date();
    for (const t of tokens) {
      const state = t.revokedAt ? "revoked" : t.expiresAt && t.expiresAt <= now ? "expired" : "active";
      console.log(
        [
          t.id,
          t.prefix,
          t.role,
          t.mintedAnonymously ? `${state} (minted anonymously: open lab only)` : state,
          t.name,
          t.lastUsedAt ? `last used ${t.lastUsedAt.toISOString()}` : "never used",
        ].join("\t"),
      );
    }
  } else if (command === "revoke") {
    const id = rest[0];
    if (!id || rest.length > 1) fail("revoke takes one token id");
    const { count } = await db.apiToken.updateMany({
      where: { id, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (!count && !(await db.apiToken.findUnique({ where: { id } }))) fail(`no token has the id "${id}"`);
    console.error(count ? `Revoked token ${id}.` : `Token ${id} was already revoked.`);
  } else if (command === "keep") {
    const id = rest[0];
    if (!id || rest.length > 1) fail("keep takes one token id");
    if (!(await keepApiToken(db, id))) fail(`no token has the id "${id}"`);
    console.error(`Kept token ${id}: it authenticates whatever the lab's access mode.`);
  } else {
    fail(command ? `unknown command "${command}"` : "a command is required");
  }
} catch (error) {
  console.error(`perflab token: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await db.$disconnect();
}
