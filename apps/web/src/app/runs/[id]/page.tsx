import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { RunSummary } from "@/components/run-summary";
import { RunView } from "@/components/run-view";
import { getDb } from "@/server/db";
import { AppError } from "@/server/errors";
import { getRun } from "@/server/operations/get-run";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

async function load(id: string) {
  try {
    return await getRun({ db: getDb(), runId: id });
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const { run } = await load(id);
  return { title: run.name };
}

export default async function RunPage({ params }: Props) {
  const { id } = await params;
  const { run, cells } = await load(id);
  return (
    <div className="space-y-8">
      <RunView run={run} cells={cells} />
      <RunSummary cells={cells} />
    </div>
  );
}
