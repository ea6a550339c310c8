import type { ServerBuildState } from "@perflab/catalog";
import type { ServerProtocol, TServerInfo } from "@perflab/contracts";
import type { FieldError } from "@/lib/form-errors";
import { FieldGroup } from "../form-field";
import { buildHint } from "./build-hint";

/** A variant's own part of its name ("stateless cluster"), shown under its server. */
function variantLabel(server: TServerInfo, variant: TServerInfo): string {
  const prefix = `${server.displayName} · `;
  return variant.displayName.startsWith(prefix)
    ? variant.displayName.slice(prefix.length)
    : variant.displayName;
}

/** Whether a server answers what the scenario speaks (a manifest without `protocols` answers both). */
const serves = (server: TServerInfo, protocol: ServerProtocol) =>
  (server.protocols ?? ["mcp", "http"]).includes(protocol);

/**
 * The servers to measure: one box per server, its variants under it, and "all" / "none". A server
 * that does not answer the chosen scenario's protocol (a REST-only server under an MCP scenario) is
 * shown, unchecked and disabled, saying what it answers.
 */
export function ServerPicker({
  servers,
  builds = {},
  selected,
  protocol,
  errors,
  onChange,
}: {
  servers: TServerInfo[];
  /** Native build states by server name; a server without one (a registered image) shows none. */
  builds?: Record<string, ServerBuildState>;
  selected: string[];
  protocol: ServerProtocol;
  errors: FieldError[];
  onChange: (selected: string[]) => void;
}) {
  const toggle = (name: string, on: boolean) =>
    onChange(on ? [...selected, name] : selected.filter((s) => s !== name));
  return (
    <FieldGroup
      id="servers"
      legend="Servers"
      errors={errors}
      actions={
        <div className="flex gap-3 text-xs">
          <button
            type="button"
            className="text-sky-700 hover:underline dark:text-sky-400"
            onClick={() =>
              onChange(servers.filter((s) => s.variant === null && serves(s, protocol)).map((s) => s.name))
            }
            aria-label="Select every server (without variants)"
          >
            all
          </button>
          <button
            type="button"
            className="text-sky-700 hover:underline dark:text-sky-400"
            onClick={() => onChange([])}
            aria-label="Clear the server selection"
          >
            none
          </button>
        </div>
      }
    >
      <div className="grid gap-2 sm:grid-cols-2">
        {servers
          .filter((server) => server.variant === null)
          .map((server) => (
            <ServerBox
              key={server.name}
              server={server}
              variants={servers.filter((v) => v.variant !== null && v.base === server.name)}
              selected={selected}
              offProtocol={serves(server, protocol) ? null : protocol}
              build={builds[server.name]}
              toggle={toggle}
            />
          ))}
      </div>
    </FieldGroup>
  );
}

function ServerBox({
  server,
  variants,
  selected,
  offProtocol,
  build,
  toggle,
}: {
  server: TServerInfo;
  variants: TServerInfo[];
  selected: string[];
  /** The scenario's protocol when this server does not answer it. */
  offProtocol: ServerProtocol | null;
  build: ServerBuildState | undefined;
  toggle: (name: string, on: boolean) => void;
}) {
  const checked = selected.includes(server.name);
  const any = checked || variants.some((v) => selected.includes(v.name));
  return (
    <div
      className={`rounded-md border px-3 py-2 text-sm ${
        any
          ? "border-sky-400 bg-sky-50/60 dark:border-sky-700 dark:bg-sky-950/40"
          : "border-zinc-200 hover:bg-zinc-50 dark:border-zinc-800 dark:hover:bg-zinc-800/40"
      }`}
    >
      <label className="flex cursor-pointer items-start gap-2.5">
        <input
          type="checkbox"
          name="servers"
          value={server.name}
          checked={checked}
          disabled={offProtocol !== null && !checked}
          onChange={(e) => toggle(server.name, e.target.checked)}
          className="mt-0.5 size-4 accent-sky-600"
          data-testid={`server-${server.name}`}
        />
        <span className="min-w-0">
          <span className="block font-medium">{server.displayName}</span>
          <span className="block text-xs text-zinc-500 dark:text-zinc-400">
            {server.language} · {server.runtime}
            {offProtocol && ` · ${offProtocol === "mcp" ? "HTTP routes only" : "MCP only"}`}
          </span>
          {build && (
            <span
              className="block text-xs text-zinc-500 dark:text-zinc-400"
              data-testid={`server-build-${server.name}`}
            >
              {buildHint(build)}
            </span>
          )}
        </span>
      </label>
      {variants.length > 0 && (
        // Variants: the same build started differently, each a server of its own in the matrix.
        <div className="mt-1.5 flex flex-wrap gap-x-4 gap-y-1 pl-6.5 text-xs text-zinc-600 dark:text-zinc-300">
          {variants.map((variant) => (
            <label
              key={variant.name}
              className="flex cursor-pointer items-center gap-1.5"
              title={variant.description ?? undefined}
            >
              <input
                type="checkbox"
                name="servers"
                value={variant.name}
                checked={selected.includes(variant.name)}
                onChange={(e) => toggle(variant.name, e.target.checked)}
                className="size-3.5 accent-sky-600"
                data-testid={`server-${variant.name}`}
              />
              {variantLabel(server, variant)}
            </label>
          ))}
        </div>
      )}
    </div>
  );
}
