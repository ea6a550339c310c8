import type { Metadata } from "next";
import Link from "next/link";
import { link, panel } from "@/components/ui";

export const metadata: Metadata = { title: "Report not found" };

export default function ReportNotFound() {
  return (
    <div className={`${panel} px-6 py-12 text-center`} data-testid="not-found">
      <h1 className="text-xl font-semibold">Report not found</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        The link may be wrong, the report revoked, or private to token holders (sign in to see it).
      </p>
      <Link href="/reports" className={`${link} mt-4 inline-block text-sm`}>
        Go to the reports
      </Link>
    </div>
  );
}
