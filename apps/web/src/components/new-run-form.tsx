"use client";

import {
  createMatrixSpecSchema,
  defaultToolArguments,
  fieldErrors,
  type TServerInfo,
} from "@perflab/contracts";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { errorsFor, type FieldError, type FieldMatch, unclaimedErrors } from "@/lib/form-errors";
import { FormField, inputClass } from "./form-field";
import { buttonPrimary, panel } from "./ui";

export type ScenarioOption = { id: string; title: string; description: string };

type FormState = {
  name: string;
  server: string;
  scenario: string;
  tool: string;
  args: string;
  vus: string;
  durationSec: string;
  warmupSec: string;
  rounds: string;
  driver: "local" | "docker";
  cpus: string;
  memoryMb: string;
};

const fields = {
  name: { exact: ["name"] },
  server: { exact: ["servers", "servers.0"] },
  scenario: { exact: ["scenarios", "scenarios.0", "scenarios.0.id"] },
  tool: { exact: ["scenarios.0.params.tool"] },
  args: { exact: [], prefix: "scenarios.0.params.arguments" },
  vus: { exact: ["loadLevels", "loadLevels.0", "loadLevels.0.vus"] },
  durationSec: { exact: ["durationSec"] },
  warmupSec: { exact: ["warmupSec"] },
  rounds: { exact: ["rounds"] },
  driver: { exact: ["driver"] },
  cpus: { exact: ["limits.cpus"] },
  memoryMb: { exact: ["limits.memoryMb"] },
} satisfies Record<keyof FormState, FieldMatch>;

const argsFor = (tool: string) => JSON.stringify(defaultToolArguments[tool] ?? {}, null, 2);

/** What the form sends: the same input shape an API client posts (arguments may still be text). */
function toSpecInput(form: FormState) {
  return {
    ...(form.name.trim() ? { name: form.name.trim() } : {}),
    servers: form.server ? [form.server] : [],
    scenarios: [{ id: form.scenario, params: { tool: form.tool, arguments: form.args } }],
    loadLevels: [{ vus: form.vus }],
    durationSec: form.durationSec,
    warmupSec: form.warmupSec,
    rounds: form.rounds,
    driver: form.driver,
    // Limits apply to containers; empty fields mean the driver's defaults (2 vCPU / 2 GB for docker).
    ...(form.cpus.trim() || form.memoryMb.trim()
      ? {
          limits: {
            ...(form.cpus.trim() ? { cpus: form.cpus } : {}),
            ...(form.memoryMb.trim() ? { memoryMb: form.memoryMb } : {}),
          },
        }
      : {}),
  };
}

export function NewRunForm({ servers, scenarios }: { servers: TServerInfo[]; scenarios: ScenarioOption[] }) {
  const router = useRouter();
  // The API's own schema, built from the same catalog, so the form rejects exactly what the API would.
  const schema = useMemo(
    () => createMatrixSpecSchema({ servers: servers.map(({ name, tools }) => ({ name, tools })) }),
    [servers],
  );
  const first = servers[0];
  const firstTool = first?.tools[0] ?? "echo";
  const [form, setForm] = useState<FormState>({
    name: "",
    server: first?.name ?? "",
    scenario: scenarios[0]?.id ?? "",
    tool: firstTool,
    args: argsFor(firstTool),
    vus: "10",
    durationSec: "30",
    warmupSec: "5",
    rounds: "1",
    driver: "local",
    cpus: "",
    memoryMb: "",
  });
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [attempted, setAttempted] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const tools = servers.find((s) => s.name === form.server)?.tools ?? [];

  const validate = (next: FormState) => {
    const result = schema.safeParse(toSpecInput(next));
    return result.success
      ? { spec: result.data, errors: [] }
      : { spec: null, errors: fieldErrors(result.error) };
  };

  const update = (patch: Partial<FormState>) => {
    const next = { ...form, ...patch };
    if (patch.server !== undefined) {
      const serverTools = servers.find((s) => s.name === patch.server)?.tools ?? [];
      if (serverTools.length > 0 && !serverTools.includes(next.tool)) {
        next.tool = serverTools[0]!;
        next.args = argsFor(next.tool);
      }
    }
    if (patch.tool !== undefined && patch.tool !== form.tool) next.args = argsFor(patch.tool);
    setForm(next);
    // Errors follow the input live once the user has tried to submit.
    if (attempted) setErrors(validate(next).errors);
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setAttempted(true);
    setFailure(null);
    const { spec, errors: clientErrors } = validate(form);
    setErrors(clientErrors);
    if (!spec) return;
    setSubmitting(true);
    try {
      const response = await fetch("/api/v1/matrices", {
        method: "POST",
        headers: { "content-type": "application/json", "x-perflab-client": "web" },
        body: JSON.stringify(spec),
      });
      const body = await response.json().catch(() => null);
      if (response.status === 201 && body?.runId) {
        router.push(`/runs/${body.runId}`);
        return;
      }
      setErrors(Array.isArray(body?.errors) ? body.errors : []);
      setFailure(body?.detail ?? body?.title ?? `The server answered ${response.status}.`);
    } catch {
      setFailure("The server could not be reached.");
    }
    setSubmitting(false);
  };

  const err = (key: keyof FormState) => errorsFor(errors, fields[key]);
  const aria = (key: keyof FormState) => ({ "aria-invalid": err(key).length > 0 });
  const formLevel = unclaimedErrors(errors, Object.values(fields));

  if (servers.length === 0) {
    return (
      <div className={`${panel} p-6 text-sm`} data-testid="no-servers">
        No servers found. Add a <code className="font-mono">servers/&lt;name&gt;/perflab.json</code> manifest
        and reload.
      </div>
    );
  }

  return (
    <form onSubmit={submit} noValidate className={`${panel} space-y-6 p-6`} data-testid="new-run-form">
      {(failure || formLevel.length > 0) && (
        <div
          role="alert"
          className="rounded-md border border-rose-300 bg-rose-50 px-4 py-3 text-sm text-rose-800 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-200"
          data-testid="form-error"
        >
          {failure && <p>{failure}</p>}
          {formLevel.map((e) => (
            <p key={e.field} data-testid={`error-${e.field}`}>
              <span className="font-mono">{e.field}</span>: {e.message}
            </p>
          ))}
        </div>
      )}

      <FormField id="name" label="Name (optional)" errors={err("name")}>
        <input
          id="name"
          className={inputClass}
          value={form.name}
          placeholder="Defaults to servers · scenario"
          onChange={(e) => update({ name: e.target.value })}
          {...aria("name")}
        />
      </FormField>

      <div className="grid gap-6 sm:grid-cols-2">
        <FormField id="server" label="Server" errors={err("server")}>
          <select
            id="server"
            className={inputClass}
            value={form.server}
            onChange={(e) => update({ server: e.target.value })}
            {...aria("server")}
          >
            {servers.map((server) => (
              <option key={server.name} value={server.name}>
                {server.displayName}
              </option>
            ))}
          </select>
        </FormField>

        <FormField
          id="scenario"
          label="Scenario"
          errors={err("scenario")}
          hint={scenarios.find((s) => s.id === form.scenario)?.description}
        >
          <select
            id="scenario"
            className={inputClass}
            value={form.scenario}
            onChange={(e) => update({ scenario: e.target.value })}
            {...aria("scenario")}
          >
            {scenarios.map((scenario) => (
              <option key={scenario.id} value={scenario.id}>
                {scenario.title}
              </option>
            ))}
          </select>
        </FormField>

        <FormField id="tool" label="Tool" errors={err("tool")}>
          {tools.length > 0 ? (
            <select
              id="tool"
              className={inputClass}
              value={form.tool}
              onChange={(e) => update({ tool: e.target.value })}
              {...aria("tool")}
            >
              {tools.map((tool) => (
                <option key={tool} value={tool}>
                  {tool}
                </option>
              ))}
            </select>
          ) : (
            <input
              id="tool"
              className={inputClass}
              value={form.tool}
              onChange={(e) => update({ tool: e.target.value })}
              {...aria("tool")}
            />
          )}
        </FormField>

        <FormField id="args" label="Tool arguments (JSON)" errors={err("args")}>
          <textarea
            id="args"
            rows={4}
            spellCheck={false}
            className={`${inputClass} font-mono`}
            value={form.args}
            onChange={(e) => update({ args: e.target.value })}
            {...aria("args")}
          />
        </FormField>
      </div>

      <div className="grid gap-6 sm:grid-cols-4">
        <NumberField
          id="vus"
          label="Virtual users"
          value={form.vus}
          errors={err("vus")}
          onChange={(vus) => update({ vus })}
        />
        <NumberField
          id="durationSec"
          label="Duration (s)"
          value={form.durationSec}
          errors={err("durationSec")}
          onChange={(durationSec) => update({ durationSec })}
        />
        <NumberField
          id="warmupSec"
          label="Warm-up (s)"
          value={form.warmupSec}
          errors={err("warmupSec")}
          onChange={(warmupSec) => update({ warmupSec })}
          hint="Excluded from the summary"
        />
        <NumberField
          id="rounds"
          label="Rounds"
          value={form.rounds}
          errors={err("rounds")}
          onChange={(rounds) => update({ rounds })}
        />
      </div>

      <div className="grid gap-6 sm:grid-cols-4">
        <FormField
          id="driver"
          label="Driver"
          errors={err("driver")}
          hint={
            form.driver === "docker"
              ? "A container per cell, host network, limits applied"
              : "A process per server"
          }
        >
          <select
            id="driver"
            className={inputClass}
            value={form.driver}
            onChange={(e) => update({ driver: e.target.value as FormState["driver"] })}
            {...aria("driver")}
          >
            <option value="local">local process</option>
            <option value="docker">docker</option>
          </select>
        </FormField>
        <NumberField
          id="cpus"
          label="CPU limit (vCPU)"
          value={form.cpus}
          errors={err("cpus")}
          onChange={(cpus) => update({ cpus })}
          hint={form.driver === "docker" ? "Default 2, capped to the host" : "Applied by the docker driver"}
        />
        <NumberField
          id="memoryMb"
          label="Memory limit (MB)"
          value={form.memoryMb}
          errors={err("memoryMb")}
          onChange={(memoryMb) => update({ memoryMb })}
          hint={
            form.driver === "docker" ? "Default 2048, capped to the host" : "Applied by the docker driver"
          }
        />
      </div>

      <div className="flex justify-end">
        <button type="submit" className={buttonPrimary} disabled={submitting} data-testid="submit-run">
          {submitting ? "Queuing…" : "Queue run"}
        </button>
      </div>
    </form>
  );
}

function NumberField({
  id,
  label,
  value,
  errors,
  onChange,
  hint,
}: {
  id: string;
  label: string;
  value: string;
  errors: FieldError[];
  onChange: (value: string) => void;
  hint?: string;
}) {
  return (
    <FormField id={id} label={label} errors={errors} hint={hint}>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        className={`${inputClass} tabular-nums`}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={errors.length > 0}
      />
    </FormField>
  );
}
