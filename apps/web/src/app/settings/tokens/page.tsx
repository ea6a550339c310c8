import type { Metadata } from "next";
import Link from "next/link";
import { PageTitle } from "@/components/page-title";
import { TokenManager } from "@/components/token-manager";
import { buttonPrimary, panel } from "@/components/ui";
import { env } from "@/env";
import { tokensRequired } from "@/server/auth";
import { getDb } from "@/server/db";
import { listTokens } from "@/server/operations/tokens";
import { pageReader } from "@/server/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API tokens" };

export default async function TokensPage() {
  // A private lab sends a visitor without a sign-in to it, as from every page of its results.
  const { caller } = await pageReader("/settings/tokens");
  // Managing tokens takes a token wherever writing does: the API would answer 401, so list nothing.
  if (tokensRequired(env.PERFLAB_ACCESS) && !caller) {
    return (
      <div className="max-w-3xl">
        <PageTitle title="API tokens" />
        <div
          className={`${panel} flex flex-col items-center gap-3 px-6 py-16 text-center`}
          data-testid="tokens-sign-in"
        >
          <h2 className="text-lg font-semibold">Sign in with an API token to manage tokens</h2>
          <p className="max-w-md text-sm text-zinc-600 dark:text-zinc-400">
            This lab needs a token for any change, managing tokens included. The first one comes from{" "}
            <code className="whitespace-nowrap font-mono">pnpm -s token create --name &lt;name&gt;</code> on
            the lab&apos;s machine.
          </p>
          <Link href="/sign-in?next=%2Fsettings%2Ftokens" className={`${buttonPrimary} mt-2`}>
            Sign in
          </Link>
        </div>
      </div>
    );
  }
  // Listing tokens takes an admin token in every lab: anyone else sees its own token only. An open
  // lab's anyone still mints member tokens here (docs/security.md, "Access model").
  const admin = caller?.role === "admin";
  const member = tokensRequired(env.PERFLAB_ACCESS) && caller?.role === "member";
  const tokens = (await listTokens({ db: getDb(), caller })).filter((t) => admin || t.id === caller?.tokenId);
  return (
    <div>
      <PageTitle title="API tokens" />
      <p className="mb-6 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        Tokens let CI jobs and the CLI queue runs and upload results, and sign this dashboard in. perflab
        keeps only a hash of each: a lost token cannot be shown again, only revoked and replaced.
      </p>
      {member && (
        <p
          className={`${panel} mb-6 max-w-3xl px-4 py-3 text-sm text-zinc-700 dark:text-zinc-300`}
          data-testid="tokens-member"
        >
          You are signed in with “{caller?.name}”, a member token: it queues, uploads, cancels and shares. An
          admin token creates and revokes the lab&apos;s tokens; you can revoke your own.
        </p>
      )}
      {!caller && (
        <p
          className={`${panel} mb-6 max-w-3xl px-4 py-3 text-sm text-zinc-700 dark:text-zinc-300`}
          data-testid="tokens-anonymous"
        >
          Sign in with an admin token to list and revoke this lab&apos;s tokens. Without one, you can make
          member tokens, which work while this lab stays open.
        </p>
      )}
      <TokenManager initialTokens={tokens} currentTokenId={caller?.tokenId ?? null} canManage={!member} />
    </div>
  );
}
