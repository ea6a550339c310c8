import { scenarioCatalog, scenarioIds } from "@perflab/contracts";
import type { Metadata } from "next";
import { NewRunForm, type ScenarioOption } from "@/components/new-run-form";
import { PageTitle } from "@/components/page-title";
import { env } from "@/env";
import { getServerCatalog, toServerInfo } from "@/server/catalog";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New run" };

export default function NewRunPage() {
  const servers = getServerCatalog().map(toServerInfo);
  const scenarios: ScenarioOption[] = scenarioIds.map((id) => ({
    id,
    title: scenarioCatalog[id].title,
    description: scenarioCatalog[id].description,
  }));
  return (
    <div className="max-w-3xl">
      <PageTitle title="New run" />
      <NewRunForm servers={servers} scenarios={scenarios} defaultDriver={env.PERFLAB_DEFAULT_DRIVER} />
    </div>
  );
}
