import { createHash, randomBytes } from "node:crypto";
import type { PrismaClient } from "./generated/prisma/client.ts";

/** Kept in step with @perflab/contracts' TOKEN_PREFIX and TOKEN_SHOWN_CHARS (tokens.test.ts checks). */
const PREFIX = "plab_";
const SHOWN_CHARS = 12;

/** A new secret: `plab_` and 256 random bits, base64url (43 characters). */
export function newTokenSecret(): string {
  return PREFIX + randomBytes(32).toString("base64url");
}

/**
 * What is stored of a secret: its SHA-256, hex. A token has 256 random bits, so a fast hash is
 * enough (no password stretching needed); the lookup is by this hash's unique index.
 */
export function hashToken(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** The part of a secret the token list shows, e.g. `plab_Xy3k9Qa`. */
export function tokenShownPart(secret: string): string {
  return secret.slice(0, SHOWN_CHARS);
}

type TokenDb = Pick<PrismaClient, "apiToken">;

export const DEFAULT_WORKSPACE_SLUG = "default";

/**
 * The lab's one workspace, created on first use: every run, report and token belongs to it until
 * perflab has more than one.
 */
export async function ensureDefaultWorkspace(db: Pick<PrismaClient, "workspace">): Promise<{ id: string }> {
  return db.workspace.upsert({
    where: { slug: DEFAULT_WORKSPACE_SLUG },
    create: { slug: DEFAULT_WORKSPACE_SLUG, name: "Default" },
    update: {},
    select: { id: true },
  });
}

/** Creates a token in a workspace; the secret is returned here and never stored. */
export async function createApiToken(
  db: TokenDb,
  input: {
    workspaceId: string;
    name: string;
    expiresAt?: Date | null;
    role?: "admin" | "member";
    /** Minted without an admin token (an open lab's anyone): valid only while the lab stays open. */
    mintedAnonymously?: boolean;
  },
) {
  const secret = newTokenSecret();
  const token = await db.apiToken.create({
    data: {
      workspaceId: input.workspaceId,
      name: input.name,
      tokenHash: hashToken(secret),
      prefix: tokenShownPart(secret),
      expiresAt: input.expiresAt ?? null,
      role: input.role ?? "member",
      mintedAnonymously: input.mintedAnonymously ?? false,
    },
  });
  return { token, secret };
}

/**
 * Keeps a token an open lab's anyone minted: it then authenticates in a lab that needs tokens too.
 * False when no token has the id.
 */
export async function keepApiToken(db: TokenDb, id: string): Promise<boolean> {
  const { count } = await db.apiToken.updateMany({ where: { id }, data: { mintedAnonymously: false } });
  return count > 0;
}
