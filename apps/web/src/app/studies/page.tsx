import { studies } from "@perflab/contracts";
import type { Metadata } from "next";
import { PageTitle } from "@/components/page-title";
import { StudyList } from "@/components/study-list";
import { env } from "@/env";
import { studyView } from "@/lib/studies";
import { catalogServerNames } from "@/server/catalog";
import { pageReader } from "@/server/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Studies" };

/** The published studies perflab reproduces, each a matrix to queue as published or quick. */
export default async function StudiesPage() {
  await pageReader("/studies");
  const available = catalogServerNames();
  return (
    <div className="max-w-4xl">
      <PageTitle title="Studies" />
      <p className="mb-6 text-sm text-zinc-600 dark:text-zinc-400">
        The published comparisons of MCP server runtimes, each as the matrix that measures what it measured on
        this lab&apos;s servers. <span className="font-medium">Quick</span> runs the same workloads for a few
        minutes to see the shape, on this lab&apos;s default driver;{" "}
        <span className="font-medium">as published</span> follows the study&apos;s durations, warm-up, rounds
        and containers where it gives them (each card says where the lab chose). Their absolute numbers came
        from other machines: compare shapes and ratios.
      </p>
      <StudyList studies={studies.map((s) => studyView(s, available, env.PERFLAB_DEFAULT_DRIVER))} />
    </div>
  );
}
