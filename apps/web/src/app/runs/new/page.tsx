import { serverBuildFailures, serverBuildStates, serversBuilding } from "@perflab/catalog";
import { scenarioCatalog, scenarioIds } from "@perflab/contracts";
import type { Metadata } from "next";
import { NewRunForm, type ScenarioOption } from "@/components/new-run-form";
import { PageTitle } from "@/components/page-title";
import { env } from "@/env";
import { getWorkspaceCatalog, toServerInfo } from "@/server/catalog";
import { getDb } from "@/server/db";
import { pageReader } from "@/server/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New run" };

export default async function NewRunPage() {
  const { caller } = await pageReader("/runs/new");
  // The lab's servers, then the workspace's registered ones (the Servers page).
  const catalog = await getWorkspaceCatalog(getDb(), caller);
  const servers = catalog.map(toServerInfo);
  // Native builds on this machine: the lab's own servers, not registered or prebuilt images.
  const builds = serverBuildStates(
    catalog.filter((e) => e.variant === null && !e.registered && !e.image).map((e) => e.name),
    env.PERFLAB_BUILD_DIR,
  );
  const scenarios: ScenarioOption[] = scenarioIds.map((id) => ({
    id,
    title: scenarioCatalog[id].title,
    description: scenarioCatalog[id].description,
  }));
  const building = serversBuilding(env.PERFLAB_BUILD_DIR);
  const failed = serverBuildFailures(env.PERFLAB_BUILD_DIR);
  return (
    <div className="max-w-3xl">
      <PageTitle title="New run" />
      {building.length > 0 && (
        <p
          className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-200"
          data-testid="servers-building"
        >
          Still building on this machine: {building.join(", ")}. Runs queue now; their cells start once the
          builds end, so no measurement shares the CPU with a compiler.
        </p>
      )}
      {failed.length > 0 && (
        <div
          className="mb-4 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950/60 dark:text-red-200"
          data-testid="servers-build-failed"
        >
          <p>Did not build on this machine; their cells on the local driver fail until they do:</p>
          <ul className="mt-1 list-disc pl-5">
            {failed.map((f) => (
              <li key={f.name}>
                <span className="font-medium">{f.name}</span>: {f.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      <NewRunForm
        servers={servers}
        builds={builds}
        scenarios={scenarios}
        defaultDriver={env.PERFLAB_DEFAULT_DRIVER}
      />
    </div>
  );
}
