import { z } from "zod";

/**
 * API tokens: the credential of CI systems, the CLI and (in a lab that needs tokens) the
 * dashboard. A secret is `plab_` and 43 base64url characters (256 random bits); perflab keeps only
 * its SHA-256 and the first characters, and shows the secret once, when it is created.
 */
export const TOKEN_PREFIX = "plab_";
/** What the token list shows of each secret, e.g. `plab_Xy3k9Qa`, to tell tokens apart. */
export const TOKEN_SHOWN_CHARS = 12;
export const TOKEN_PATTERN = /^plab_[A-Za-z0-9_-]{43}$/;
/** Longest life a token may be given; "never" is a token without an expiry. */
export const TOKEN_MAX_DAYS = 365;

/**
 * What a token may do in a lab that needs tokens (`token`, `private`): a member queues, uploads,
 * cancels and shares; an admin also lists, creates and revokes tokens. (In an open lab anyone may
 * do both.)
 */
export const TOKEN_ROLES = ["member", "admin"] as const;
export const ZTokenRole = z.enum(TOKEN_ROLES, { error: 'must be "member" or "admin"' });
export type TTokenRole = z.infer<typeof ZTokenRole>;

/** `POST /api/v1/tokens`. */
export const ZCreateToken = z.strictObject(
  {
    name: z
      .string({ error: "must be a string" })
      .trim()
      .min(1, "must not be empty")
      .max(100, "must be at most 100 characters"),
    expiresInDays: z
      .number({ error: "must be a number of days" })
      .int("must be a whole number of days")
      .min(1, "must be at least 1 day")
      .max(TOKEN_MAX_DAYS, `must be at most ${TOKEN_MAX_DAYS} days`)
      .optional(),
    role: ZTokenRole.default("member").describe(
      "member (the default): queue, upload, cancel, share. admin: also manage tokens.",
    ),
  },
  { error: "must be a JSON object" },
);
export type TCreateTokenInput = z.input<typeof ZCreateToken>;

const ZDate = z.iso.datetime({ offset: true });

export const ZTokenDto = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe("The secret's first characters, to tell tokens apart."),
  role: ZTokenRole,
  createdAt: ZDate,
  lastUsedAt: ZDate.nullable(),
  expiresAt: ZDate.nullable(),
  revokedAt: ZDate.nullable(),
  /** active, or why the token no longer authenticates. */
  state: z.enum(["active", "expired", "revoked"]),
});
export type TTokenDto = z.infer<typeof ZTokenDto>;

export const ZCreatedToken = z.object({
  token: ZTokenDto,
  secret: z.string().describe("The token itself. Shown this once; perflab keeps only its hash."),
});
export type TCreatedToken = z.infer<typeof ZCreatedToken>;

export const ZTokenList = z.object({ tokens: z.array(ZTokenDto) });

/** `POST /api/v1/session`: the dashboard signs in with a token, kept in an HttpOnly cookie. */
export const ZSignIn = z.strictObject(
  { token: z.string({ error: "must be an API token" }).trim().min(1, "must be an API token") },
  { error: "must be a JSON object" },
);

/** Who the caller is: the lab's access mode and the token the request authenticated with, if any. */
export const ZSession = z.object({
  access: z.enum(["open", "token", "private"]),
  token: ZTokenDto.nullable(),
});
export type TSession = z.infer<typeof ZSession>;
