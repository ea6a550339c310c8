import { cookies } from "next/headers";
import Link from "next/link";
import { env } from "@/env";
import { TOKEN_COOKIE } from "@/server/auth";
import { pageCaller } from "@/server/session";
import { MainNav } from "./main-nav";
import { SignInLink, SignOutButton } from "./sign-in-form";
import { ThemeToggle } from "./theme-toggle";

export async function SiteHeader() {
  const caller = await pageCaller();
  // A cookie whose token was revoked or expired: writes would be refused until it is replaced or cleared.
  const stale = !caller && (await cookies()).has(TOKEN_COOKIE);
  return (
    <header className="border-b border-zinc-200 bg-white/80 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/80">
      <div className="mx-auto flex h-14 max-w-7xl items-center gap-6 px-4 sm:px-6">
        <Link href="/" className="font-mono text-lg font-semibold tracking-tight">
          perflab
        </Link>
        <MainNav />
        <div className="ml-auto flex items-center gap-3 text-sm" data-testid="session">
          {caller ? (
            <>
              <span className="text-zinc-600 dark:text-zinc-400" data-testid="signed-in-as">
                Signed in as{" "}
                <span className="font-medium text-zinc-900 dark:text-zinc-100">{caller.name}</span>
              </span>
              <SignOutButton />
            </>
          ) : stale ? (
            <>
              <span className="text-amber-700 dark:text-amber-400">Sign-in no longer valid</span>
              <SignInLink />
              <SignOutButton />
            </>
          ) : (
            env.PERFLAB_ACCESS === "token" && <SignInLink />
          )}
          <ThemeToggle />
        </div>
      </div>
    </header>
  );
}
