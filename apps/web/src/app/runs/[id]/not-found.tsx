import type { Metadata } from "next";
import Link from "next/link";
import { link, panel } from "@/components/ui";

export const metadata: Metadata = { title: "Run not found" };

export default function RunNotFound() {
  return (
    <div className={`${panel} px-6 py-12 text-center`} data-testid="not-found">
      <h1 className="text-xl font-semibold">Run not found</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        It may have been deleted, or the link is wrong.
      </p>
      <Link href="/" className={`${link} mt-4 inline-block text-sm`}>
        Back to the runs
      </Link>
    </div>
  );
}
