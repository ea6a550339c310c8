"use client";

import { useEffect } from "react";
import { buttonPrimary, panel } from "@/components/ui";

export default function ErrorPage({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  useEffect(() => {
    console.error(error);
  }, [error]);

  return (
    <div className={`${panel} px-6 py-12 text-center`} role="alert" data-testid="error-state">
      <h1 className="text-xl font-semibold">Something went wrong</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        The page could not be loaded. Check that Postgres and Redis are reachable, then try again.
      </p>
      {error.digest && <p className="mt-2 font-mono text-xs text-zinc-500">Reference: {error.digest}</p>}
      <button type="button" onClick={reset} className={`${buttonPrimary} mt-6`}>
        Try again
      </button>
    </div>
  );
}
