import type { Metadata } from "next";
import Link from "next/link";
import { PageTitle } from "@/components/page-title";
import { SignInForm } from "@/components/sign-in-form";
import { link } from "@/components/ui";
import { env } from "@/env";
import { safeNext } from "@/lib/safe-next";
import { pageCaller } from "@/server/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

type Props = { searchParams: Promise<{ next?: string | string[] }> };

export default async function SignInPage({ searchParams }: Props) {
  const next = safeNext((await searchParams).next);
  const caller = await pageCaller();
  return (
    <div className="max-w-xl">
      <PageTitle title="Sign in" />
      <div className="mb-6 space-y-2 text-sm text-zinc-600 dark:text-zinc-400">
        <p>
          {env.PERFLAB_ACCESS === "private"
            ? "This lab's runs and results are private: sign in with an API token of your workspace to see them. Reports shared by their link open without one."
            : env.PERFLAB_ACCESS === "token"
              ? "This lab needs an API token to queue runs, upload results, share reports and manage tokens; reading stays open."
              : "Signing in records your token on what you create and lets you share reports privately."}
        </p>
        <p>
          Tokens come from{" "}
          <Link href="/settings/tokens" className={link}>
            Settings → API tokens
          </Link>
          , or for the first one, from{" "}
          <code className="whitespace-nowrap font-mono">pnpm -s token create --name &lt;name&gt;</code> on the
          lab&apos;s machine.
        </p>
        {caller && (
          <p data-testid="signed-in-note">
            This browser is signed in as <span className="font-medium">{caller.name}</span>; signing in again
            replaces it.
          </p>
        )}
      </div>
      <SignInForm next={next} />
    </div>
  );
}
