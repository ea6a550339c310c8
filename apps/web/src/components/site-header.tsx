import { cookies } from "next/headers";
import Link from "next/link";
import { env } from "@/env";
import { TOKEN_COOKIE } from "@/server/auth";
import { pageCaller } from "@/server/session";
import { MainNav } from "./main-nav";
import { SignInLink, SignOutButton } from "./sign-in-form";
import { ThemeToggle } from "./theme-toggle";

/** The open lab's sign-in: optional there, so quieter than that of a lab that needs tokens. */
const quietLink =
  "rounded-md px-2 py-1 text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100";

/**
 * One row from a tablet up; on a phone the links take a second row of their own (scrolling within
 * it should they not fit), so the page is never wider than the screen.
 */
export async function SiteHeader() {
  const caller = await pageCaller();
  // A cookie whose token was revoked or expired: writes would be refused until it is replaced or cleared.
  const stale = !caller && (await cookies()).has(TOKEN_COOKIE);
  return (
    <header className="border-b border-zinc-200 bg-white/80 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/80">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-1 px-4 py-2 sm:px-6 md:h-14 md:flex-nowrap md:py-0">
        <Link href="/" className="font-mono text-lg font-semibold tracking-tight">
          perflab
        </Link>
        {/* A private lab's pages all lead to its sign-in until there is one: no links to them. */}
        {(caller || env.PERFLAB_ACCESS !== "private") && <MainNav />}
        <div
          className="ml-auto flex min-w-0 flex-wrap items-center justify-end gap-x-3 gap-y-1 text-sm"
          data-testid="session"
        >
          {caller ? (
            <>
              <span
                className="flex min-w-0 text-zinc-600 dark:text-zinc-400"
                data-testid="signed-in-as"
                title={`Signed in as ${caller.name}`}
              >
                <span className="sr-only sm:not-sr-only sm:whitespace-pre">Signed in as </span>
                <span className="max-w-32 truncate font-medium text-zinc-900 sm:max-w-48 dark:text-zinc-100">
                  {caller.name}
                </span>
              </span>
              <SignOutButton />
            </>
          ) : stale ? (
            <>
              <span className="text-amber-700 dark:text-amber-400">Sign-in no longer valid</span>
              <SignInLink />
              <SignOutButton />
            </>
          ) : env.PERFLAB_ACCESS !== "open" ? (
            <SignInLink />
          ) : (
            <SignInLink className={quietLink} />
          )}
          <ThemeToggle />
        </div>
      </div>
    </header>
  );
}
