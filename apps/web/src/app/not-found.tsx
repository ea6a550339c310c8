import type { Metadata } from "next";
import Link from "next/link";
import { link, panel } from "@/components/ui";

export const metadata: Metadata = { title: "Not found" };

export default function NotFound() {
  return (
    <div className={`${panel} px-6 py-12 text-center`} data-testid="not-found">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">Nothing lives at this address.</p>
      <Link href="/" className={`${link} mt-4 inline-block text-sm`}>
        Back to the runs
      </Link>
    </div>
  );
}
