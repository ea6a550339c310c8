import { createHash } from "node:crypto";
import { TOKEN_PATTERN, TOKEN_PREFIX, TOKEN_SHOWN_CHARS } from "@perflab/contracts";
import type { Db } from "@perflab/db";
import { hashToken, newTokenSecret, tokenShownPart } from "@perflab/db";
import { describe, expect, it } from "vitest";
import {
  authorizeRead,
  type Caller,
  credentialOf,
  readScope,
  refuseCrossSite,
  reportMember,
  requireAdmin,
  TOKEN_COOKIE,
  tokenState,
} from "./auth";
import { AppError } from "./errors";

const request = (headers: Record<string, string>) => new Request("http://127.0.0.1/api/v1/runs", { headers });

describe("token secrets", () => {
  it("are plab_ and 256 random bits; only their SHA-256 and first characters are kept", () => {
    const a = newTokenSecret();
    const b = newTokenSecret();
    expect(a).toMatch(TOKEN_PATTERN);
    expect(a.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(a).not.toBe(b);
    expect(Buffer.from(a.slice(TOKEN_PREFIX.length), "base64url")).toHaveLength(32);
    expect(hashToken(a)).toBe(createHash("sha256").update(a).digest("hex"));
    expect(tokenShownPart(a)).toBe(a.slice(0, TOKEN_SHOWN_CHARS));
    // What is shown keeps almost all of the secret's bits hidden.
    expect(TOKEN_SHOWN_CHARS - TOKEN_PREFIX.length).toBeLessThanOrEqual(8);
  });
});

describe("a request's credential", () => {
  it("is the Bearer token of the Authorization header, else the sign-in cookie, else none", () => {
    expect(credentialOf(request({ authorization: "Bearer plab_abc" }))).toEqual({
      secret: "plab_abc",
      field: "authorization",
    });
    expect(credentialOf(request({ authorization: "bearer  plab_abc " }))?.secret).toBe("plab_abc");
    expect(credentialOf(request({ cookie: `theme=dark; ${TOKEN_COOKIE}=plab_c%2Dd` }))).toEqual({
      secret: "plab_c-d",
      field: "cookie",
    });
    // The header wins over the cookie: a CI job's explicit token is the one that counts.
    expect(
      credentialOf(request({ authorization: "Bearer plab_h", cookie: `${TOKEN_COOKIE}=plab_c` }))?.secret,
    ).toBe("plab_h");
    expect(credentialOf(request({ cookie: "theme=dark" }))).toBeNull();
    expect(credentialOf(request({}))).toBeNull();
  });

  it("refuses an Authorization header of another scheme with a 401 naming the header", () => {
    for (const authorization of ["Basic dXNlcjpwYXNz", "Bearer", "plab_abc", "Bearer a b"]) {
      try {
        credentialOf(request({ authorization }));
        expect.unreachable(`"${authorization}" was accepted`);
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).status).toBe(401);
        expect((error as AppError).errors?.[0]?.field).toBe("authorization");
      }
    }
  });
});

describe("a stored token's state", () => {
  const now = new Date("2026-11-24T12:00:00Z");
  it("is revoked, expired (at its expiry instant) or active", () => {
    expect(tokenState({ revokedAt: null, expiresAt: null }, now)).toBe("active");
    expect(tokenState({ revokedAt: null, expiresAt: new Date("2026-11-24T12:00:01Z") }, now)).toBe("active");
    expect(tokenState({ revokedAt: null, expiresAt: now }, now)).toBe("expired");
    expect(tokenState({ revokedAt: now, expiresAt: new Date("2027-01-01Z") }, now)).toBe("revoked");
  });
});

/** The error a call throws, or null. */
function thrown(f: () => void): AppError | null {
  try {
    f();
    return null;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

describe("a change asked for by another site", () => {
  const post = (headers: Record<string, string>) =>
    new Request("http://127.0.0.1:3000/api/v1/matrices", {
      method: "POST",
      headers: { host: "127.0.0.1:3000", ...headers },
    });

  it("passes from the lab's own pages and from clients that send no Origin", () => {
    expect(thrown(() => refuseCrossSite(post({})))).toBeNull();
    expect(thrown(() => refuseCrossSite(post({ origin: "http://127.0.0.1:3000" })))).toBeNull();
    expect(thrown(() => refuseCrossSite(post({ "sec-fetch-site": "same-origin" })))).toBeNull();
    // Behind a proxy the page's origin is the proxy's host.
    const proxied = post({ origin: "https://lab.example.org", "x-forwarded-host": "lab.example.org" });
    expect(thrown(() => refuseCrossSite(proxied))).toBeNull();
  });

  it("is a 403 naming origin: another site, another port of the same host, an opaque origin", () => {
    const refusedHeaders: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "http://127.0.0.1:5173", "sec-fetch-site": "same-site" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
    ];
    for (const headers of refusedHeaders) {
      const error = thrown(() => refuseCrossSite(post(headers)));
      expect(error?.status, JSON.stringify(headers)).toBe(403);
      expect(error?.errors?.[0]?.field).toBe("origin");
    }
    expect(
      thrown(() => refuseCrossSite(post({ origin: "https://evil.example" })))?.errors?.[0]?.message,
    ).toContain('"https://evil.example"');
  });
});

describe("managing tokens", () => {
  const caller = (role: Caller["role"], mintedAnonymously = false): Caller => ({
    tokenId: "t",
    workspaceId: "w",
    name: "ci",
    role,
    mintedAnonymously,
  });

  it("takes an admin token: a member's is a 403 naming it", () => {
    const error = thrown(() => requireAdmin(caller("member")));
    expect(error?.status).toBe(403);
    expect(error?.errors?.[0]).toMatchObject({ field: "authorization" });
    expect(error?.errors?.[0]?.message).toContain('"ci" is a member token');
    expect(thrown(() => requireAdmin(caller("admin")))).toBeNull();
  });

  it("is no one's without a token, in an open lab too: a 401 naming authorization", () => {
    const error = thrown(() => requireAdmin(null));
    expect(error?.status).toBe(401);
    expect(error?.errors?.[0]?.message).toMatch(/needs an admin token: send Authorization: Bearer/);
  });

  it("a token minted anonymously is no member for private reports", () => {
    expect(reportMember(caller("member", true))).toBeNull();
    expect(reportMember(caller("member"))).toMatchObject({ workspaceId: "w" });
    expect(reportMember(null)).toBeNull();
  });
});

describe("reading", () => {
  const caller: Caller = {
    tokenId: "t",
    workspaceId: "w",
    name: "ci",
    role: "member",
    mintedAnonymously: false,
  };
  // Without a credential nothing is looked up: no database is needed.
  const noDb = {} as Db;
  const refusal = (access: "open" | "token" | "private") =>
    authorizeRead(noDb, request({}), access).then(
      () => null,
      (error: unknown) => error as AppError,
    );

  it("needs a token in a private lab only: a 401 naming authorization, as a change without one", async () => {
    const error = await refusal("private");
    expect(error?.status).toBe(401);
    expect(error?.errors?.[0]).toMatchObject({ field: "authorization" });
    expect(error?.errors?.[0]?.message).toMatch(/private: send Authorization: Bearer <token>, or sign in/);
    expect(await refusal("token")).toBeNull();
    expect(await refusal("open")).toBeNull();
  });

  it("keeps to the token's workspace in a private lab only, where reading is not open to all", () => {
    expect(readScope(caller, "private")).toBe("w");
    expect(readScope(caller, "token")).toBeNull();
    expect(readScope(caller, "open")).toBeNull();
    expect(readScope(null, "open")).toBeNull();
  });
});
