import type { Metadata } from "next";
import { PageTitle } from "@/components/page-title";
import { ServerRegistry } from "@/components/servers/server-registry";
import { getServerCatalog, toServerInfo } from "@/server/catalog";
import { getDb } from "@/server/db";
import { listRegisteredServers, serializeServer } from "@/server/operations/registered-servers";
import { pageReader } from "@/server/session";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Servers" };

export default async function ServersPage() {
  const { caller } = await pageReader("/servers");
  const registered = await listRegisteredServers({ db: getDb(), caller });
  const lab = getServerCatalog()
    .filter((s) => s.variant === null)
    .map(toServerInfo);
  return (
    <div>
      <PageTitle title="Servers" />
      <p className="mb-6 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        Bring your own MCP server: register it as an image on the worker&apos;s Docker engine, a command on
        the worker&apos;s machine (admins only: it runs there with the worker&apos;s rights) or an endpoint
        already running on this machine&apos;s loopback, which perflab loads but does not start, so its CPU
        and memory are not measured. Registered servers belong to this workspace and appear in the run form.
      </p>
      <ServerRegistry initialServers={registered.map(serializeServer)} labServers={lab} />
    </div>
  );
}
