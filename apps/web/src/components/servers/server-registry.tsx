"use client";

import type { TRegisteredServerDto, TServerInfo } from "@perflab/contracts";
import { useState } from "react";
import { buttonSecondary, scrollPanel, table, tbody, td, th } from "../ui";
import { RegisterServerForm } from "./register-form";

const kindLabel = { image: "image", command: "command", endpoint: "endpoint" } as const;

/** Where a registered server runs, in a few words: its image, command or URL. */
function whereItRuns({ definition: d }: TRegisteredServerDto): string {
  if (d.kind === "image") return d.image;
  if (d.kind === "command") return d.command.join(" ");
  return `${d.url}${d.mcpPath}`;
}

/**
 * The workspace's registered servers (register, list, remove) above the lab's own, which every
 * workspace shares and only the lab's repository changes.
 */
export function ServerRegistry({
  initialServers,
  labServers,
}: {
  initialServers: TRegisteredServerDto[];
  labServers: Pick<TServerInfo, "name" | "displayName" | "sdk">[];
}) {
  const [servers, setServers] = useState(initialServers);
  const registered = (server: TRegisteredServerDto) =>
    setServers((list) =>
      [...list, server].sort((a, b) => a.definition.name.localeCompare(b.definition.name)),
    );
  const removed = (id: string) => setServers((list) => list.filter((s) => s.id !== id));
  return (
    <div className="space-y-8">
      <RegisterServerForm onRegistered={registered} />
      <section>
        <h2 className="mb-3 text-lg font-semibold">This workspace&apos;s servers</h2>
        {servers.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="servers-empty">
            None registered yet.
          </p>
        ) : (
          <div className={scrollPanel}>
            <table className={table} data-testid="registered-servers">
              <thead>
                <tr>
                  <th className={th}>Name</th>
                  <th className={th}>Kind</th>
                  <th className={th}>SDK</th>
                  <th className={th}>Runs as</th>
                  <th className={th}>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody className={tbody}>
                {servers.map((server) => (
                  <tr key={server.id} data-testid={`registered-${server.definition.name}`}>
                    <td className={td}>
                      <span className="font-medium">{server.definition.name}</span>{" "}
                      <span className="text-zinc-500">{server.definition.displayName}</span>
                    </td>
                    <td className={td}>{kindLabel[server.definition.kind]}</td>
                    <td className={td}>
                      {server.definition.sdk.name} {server.definition.sdk.version}
                    </td>
                    <td className={`${td} font-mono text-xs`}>{whereItRuns(server)}</td>
                    <td className={td}>
                      <RemoveButton server={server} onRemoved={removed} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section>
        <h2 className="mb-3 text-lg font-semibold">The lab&apos;s servers</h2>
        <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="lab-servers">
          {labServers.map((s) => `${s.name} (${s.sdk.name} ${s.sdk.version})`).join(" · ")}
        </p>
      </section>
    </div>
  );
}

function RemoveButton({
  server,
  onRemoved,
}: {
  server: TRegisteredServerDto;
  onRemoved: (id: string) => void;
}) {
  const [state, setState] = useState<"idle" | "confirm" | "removing">("idle");
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    setState("removing");
    const response = await fetch(`/api/v1/servers/${encodeURIComponent(server.id)}`, {
      method: "DELETE",
    }).catch(() => null);
    if (response?.status === 204) return onRemoved(server.id);
    const body = await response?.json().catch(() => null);
    setError(body?.errors?.[0]?.message ?? body?.detail ?? "The server was not removed.");
    setState("idle");
  };
  const name = server.definition.name;
  return (
    <span className="flex items-center gap-2">
      {state === "idle" ? (
        <button
          type="button"
          className={buttonSecondary}
          aria-label={`Remove ${name}`}
          onClick={() => setState("confirm")}
        >
          Remove
        </button>
      ) : (
        <button
          type="button"
          className={buttonSecondary}
          disabled={state === "removing"}
          onClick={remove}
          data-testid={`remove-confirm-${name}`}
        >
          Remove? Past results stay.
        </button>
      )}
      {error && (
        <span role="alert" className="text-xs text-rose-600">
          {error}
        </span>
      )}
    </span>
  );
}
