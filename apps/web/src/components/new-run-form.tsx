"use client";

import {
  createMatrixSpecSchema,
  type DriverId,
  defaultToolArguments,
  type HttpRoute,
  httpRoutes,
  MAX_RATE,
  type SessionMode,
  type TServerInfo,
  ZMatrixSpecInput,
} from "@perflab/contracts";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import {
  errorsFor,
  type FieldError,
  type FieldMatch,
  mergeByField,
  unclaimedErrors,
} from "@/lib/form-errors";
import { capitalized, operationWord } from "@/lib/labels";
import { CELL_START_STOP_SEC, estimateMatrix, formatApproxDuration, splitVuList } from "@/lib/matrix-preview";
import { validateSpec } from "@/lib/spec-errors";
import { dockerNotice } from "@/lib/workers";
import { FieldGroup, FormField, focusFirstInvalid, inputClass } from "./form-field";
import { SignInHint } from "./sign-in-form";
import { buttonPrimary, panel } from "./ui";
import { useWorkers } from "./use-workers";
import { QueueNotice, WarningNote } from "./workers-notice";

export type ScenarioOption = { id: string; title: string; description: string };

type FormState = {
  name: string;
  /** Selected server names, kept in the catalog's order. */
  servers: string[];
  scenario: string;
  tool: string;
  args: string;
  session: SessionMode;
  /** One session per VU: how many each VU holds, and its pause after each call (empty: 1 and none). */
  sessionsPerVu: string;
  thinkMs: string;
  /** The http-route scenario's route. */
  route: HttpRoute;
  /** Closed model: levels are VUs; open model: tool calls started per second. */
  model: "closed" | "open";
  /** Load levels as typed: "10, 50, 100" (VUs, or calls per second in the open model). */
  vus: string;
  /** Open model: the VU pool of every level; empty for the default. */
  maxVus: string;
  durationSec: string;
  warmupSec: string;
  rounds: string;
  driver: DriverId;
  cpus: string;
  memoryMb: string;
  cpuset: string;
};

const fields = {
  name: { exact: ["name"] },
  servers: { exact: [], prefix: "servers" },
  scenario: { exact: ["scenarios", "scenarios.0", "scenarios.0.id"] },
  tool: { exact: ["scenarios.0.params.tool"] },
  args: { exact: [], prefix: "scenarios.0.params.arguments" },
  session: { exact: ["scenarios.0.params.session"] },
  sessionsPerVu: { exact: ["scenarios.0.params.sessionsPerVu"] },
  thinkMs: { exact: ["scenarios.0.params.thinkMs"] },
  route: { exact: ["scenarios.0.params.route"] },
  model: { exact: [] },
  // Shown beside the pool's own field: see maxVusErrors.
  maxVus: { exact: [] },
  vus: { exact: [], prefix: "loadLevels" },
  durationSec: { exact: ["durationSec"] },
  warmupSec: { exact: ["warmupSec"] },
  rounds: { exact: ["rounds"] },
  driver: { exact: ["driver"] },
  cpus: { exact: ["limits.cpus"] },
  memoryMb: { exact: ["limits.memoryMb"] },
  cpuset: { exact: ["limits.cpuset"] },
} satisfies Record<keyof FormState, FieldMatch>;

/** Each field's name in the matrix preview's list of fields to fix, in the form's order. */
const fieldLabels: Record<keyof FormState, string> = {
  name: "Name",
  servers: "Servers",
  scenario: "Scenario",
  tool: "Tool",
  session: "Sessions",
  sessionsPerVu: "Sessions per VU",
  thinkMs: "Think time",
  args: "Tool arguments",
  route: "Route",
  model: "Load model",
  maxVus: "Max VUs",
  vus: "Virtual users",
  durationSec: "Duration",
  warmupSec: "Warm-up",
  rounds: "Rounds",
  driver: "Driver",
  cpus: "CPU limit",
  memoryMb: "Memory limit",
  cpuset: "CPU set",
};
const fieldOrder = Object.keys(fieldLabels) as (keyof FormState)[];

/** What each route of the http-route scenario measures, under its select. */
const routeHints: Record<HttpRoute, string> = {
  "/rest/time": "The trivial route: the server's clock as JSON, no I/O",
  "/rest/users/{id}": "A Postgres primary-key lookup (the fixtures start first), ids 1–100000 in turn",
};

const argsFor = (tool: string) => JSON.stringify(defaultToolArguments[tool] ?? {}, null, 2);

/** The API's default cool-down between cells; the form does not change it. */
const DEFAULT_COOLDOWN_SEC = ZMatrixSpecInput.shape.cooldownSec.parse(undefined);

/** A variant's own part of its name ("stateless cluster"), shown under its server. */
function variantLabel(server: TServerInfo, variant: TServerInfo): string {
  const prefix = `${server.displayName} · `;
  return variant.displayName.startsWith(prefix)
    ? variant.displayName.slice(prefix.length)
    : variant.displayName;
}

/**
 * Tools every selected server offers, in the first one's order. A server that lists no tools
 * accepts any (the schema does not check it), so it narrows nothing; null when none lists tools.
 */
function commonTools(servers: TServerInfo[], selected: string[]): string[] | null {
  const lists = servers.filter((s) => selected.includes(s.name) && s.tools.length > 0).map((s) => s.tools);
  if (lists.length === 0) return null;
  return lists[0]!.filter((tool) => lists.every((list) => list.includes(tool)));
}

/** A whole number ≥ min, or null: the preview only counts what the schema would accept. */
function wholeNumber(text: string, min: number): number | null {
  if (text.trim() === "") return null;
  const n = Number(text);
  return Number.isInteger(n) && n >= min ? n : null;
}

/** The fields of the chosen scenario only: a tool call's, or an HTTP route's. */
function scenarioParams(form: FormState): Record<string, unknown> {
  if (form.scenario === "http-route") return { route: form.route };
  return {
    tool: form.tool,
    arguments: form.args,
    ...(form.session === "per-call" ? { session: form.session } : {}),
    ...(form.session === "per-vu" && form.sessionsPerVu.trim()
      ? { sessionsPerVu: Number(form.sessionsPerVu) }
      : {}),
    ...(form.thinkMs.trim() ? { thinkMs: Number(form.thinkMs) } : {}),
  };
}

/** What the form sends: the same input shape an API client posts (arguments may still be text). */
function toSpecInput(form: FormState) {
  return {
    ...(form.name.trim() ? { name: form.name.trim() } : {}),
    servers: form.servers,
    scenarios: [{ id: form.scenario, params: scenarioParams(form) }],
    loadLevels: splitVuList(form.vus).map((value) =>
      form.model === "open"
        ? { rate: value, ...(form.maxVus.trim() ? { maxVus: form.maxVus.trim() } : {}) }
        : { vus: value },
    ),
    durationSec: form.durationSec,
    warmupSec: form.warmupSec,
    rounds: form.rounds,
    driver: form.driver,
    // Limits apply to containers; empty fields mean the driver's defaults (2 vCPU / 2 GB for docker).
    ...(form.cpus.trim() || form.memoryMb.trim() || form.cpuset.trim()
      ? {
          limits: {
            ...(form.cpus.trim() ? { cpus: form.cpus } : {}),
            ...(form.memoryMb.trim() ? { memoryMb: form.memoryMb } : {}),
            ...(form.cpuset.trim() ? { cpuset: form.cpuset.trim() } : {}),
          },
        }
      : {}),
  };
}

export function NewRunForm({
  servers,
  scenarios,
  defaultDriver = "local",
}: {
  servers: TServerInfo[];
  scenarios: ScenarioOption[];
  /** The driver the form starts on: the lab's (PERFLAB_DEFAULT_DRIVER), local unless configured. */
  defaultDriver?: FormState["driver"];
}) {
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
    servers: first ? [first.name] : [],
    scenario: scenarios[0]?.id ?? "",
    tool: firstTool,
    args: argsFor(firstTool),
    session: "per-vu",
    sessionsPerVu: "",
    thinkMs: "",
    route: httpRoutes[0],
    model: "closed",
    vus: "10",
    maxVus: "",
    durationSec: "30",
    warmupSec: "5",
    rounds: "1",
    driver: defaultDriver,
    cpus: "",
    memoryMb: "",
    cpuset: "",
  });
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [attempted, setAttempted] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  /** The API answered 401: this lab needs a token, or the sign-in's token stopped working. */
  const [needsToken, setNeedsToken] = useState(false);
  // The server's answer shows above the form, while the submit button is at its foot: bring it into view.
  const alertRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (failure) alertRef.current?.scrollIntoView({ block: "nearest" });
  }, [failure]);
  // A refused submit takes focus to the first field in error, once its errors have rendered.
  const formRef = useRef<HTMLFormElement>(null);
  const [refusals, setRefusals] = useState(0);
  useEffect(() => {
    if (refusals > 0) focusFirstInvalid(formRef.current);
  }, [refusals]);

  const tools = commonTools(servers, form.servers);
  // Who would take the run: no worker, or docker chosen where no worker reaches an engine, is said here.
  const workers = useWorkers();
  const noEngine = dockerNotice(workers, form.driver);

  // Every field's errors at once, the scenario's parameters' too (see validateSpec).
  const validate = (next: FormState) => validateSpec(schema, toSpecInput(next));

  const update = (patch: Partial<FormState>) => {
    const next = { ...form, ...patch };
    if (patch.servers !== undefined) {
      next.servers = servers.map((s) => s.name).filter((name) => patch.servers!.includes(name));
      const shared = commonTools(servers, next.servers);
      if (shared && shared.length > 0 && !shared.includes(next.tool)) {
        next.tool = shared[0]!;
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
    setNeedsToken(false);
    const { spec, errors: clientErrors } = validate(form);
    setErrors(clientErrors);
    if (!spec) {
      setRefusals((n) => n + 1);
      return;
    }
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
      // A 401's errors are about the credential, not a field of the form.
      setNeedsToken(response.status === 401);
      setErrors(response.status !== 401 && Array.isArray(body?.errors) ? body.errors : []);
      setFailure(body?.detail ?? body?.title ?? `The server answered ${response.status}.`);
      setRefusals((n) => n + 1);
    } catch {
      setFailure("The server could not be reached.");
    }
    setSubmitting(false);
  };

  const err = (key: keyof FormState) => errorsFor(errors, fields[key]);
  const ops = operationWord(form.scenario);
  const aria = (key: keyof FormState) => ({ "aria-invalid": err(key).length > 0 });
  const formLevel = unclaimedErrors(errors, Object.values(fields));

  // A level's error names the value it is about: "0: must be at least 1".
  const vuTokens = splitVuList(form.vus);
  // Every open-model level has the one pool size typed under it: its errors show there, once.
  const levelErrors = err("vus");
  const maxVusErrors = mergeByField(
    levelErrors
      .filter((e) => e.field.endsWith(".maxVus"))
      .map((e) => ({ field: "maxVus", message: e.message })),
  );
  const vuErrors = levelErrors
    .filter((e) => !e.field.endsWith(".maxVus"))
    .map((e) => {
      const token = vuTokens[Number(/^loadLevels\.(\d+)/.exec(e.field)?.[1] ?? Number.NaN)];
      return token === undefined ? e : { ...e, message: `${token}: ${e.message}` };
    });

  const toggleServer = (name: string, on: boolean) =>
    update({ servers: on ? [...form.servers, name] : form.servers.filter((s) => s !== name) });

  // Levels the schema would take, each once: what the preview counts while others show errors.
  const levelCount = new Set(
    vuTokens
      .map((t) => wholeNumber(t, 1))
      .filter((level) => level !== null && level <= (form.model === "open" ? MAX_RATE : 5000)),
  ).size;
  // The fields the schema refuses as typed: while there are any, the preview names them, not counts.
  // The matrix's own limits (cells, hours) are no one field's: the preview shows the count and says
  // which limit it passes, so servers or rounds are not taken for the one at fault.
  const { invalidFields, matrixLimits } = useMemo(() => {
    const all = validateSpec(schema, toSpecInput(form)).errors;
    const isLimit = (e: { message: string }) => /^the matrix (has \d+ cells|would run for)/.test(e.message);
    const refused = all.filter((e) => !isLimit(e));
    const keys = (Object.keys(fields) as (keyof FormState)[]).filter((key) =>
      errorsFor(refused, fields[key]).some((e) => key !== "vus" || !e.field.endsWith(".maxVus")),
    );
    if (refused.some((e) => e.field.endsWith(".maxVus"))) keys.push("maxVus");
    return {
      invalidFields: keys
        .sort((a, b) => fieldOrder.indexOf(a) - fieldOrder.indexOf(b))
        .map((key) =>
          key === "vus" && form.model === "open" ? `${capitalized(ops)} per second` : fieldLabels[key],
        ),
      matrixLimits: all.filter(isLimit).map((e) => e.message),
    };
  }, [schema, form, ops]);
  const rounds = wholeNumber(form.rounds, 1);
  const durationSec = wholeNumber(form.durationSec, 1);
  const warmupSec = form.warmupSec.trim() === "" ? 0 : wholeNumber(form.warmupSec, 0);
  const estimate =
    rounds === null || durationSec === null || warmupSec === null
      ? null
      : estimateMatrix({
          servers: form.servers.length,
          scenarios: 1,
          levels: levelCount,
          rounds,
          durationSec,
          warmupSec,
          cooldownSec: DEFAULT_COOLDOWN_SEC,
        });

  if (servers.length === 0) {
    return (
      <div className={`${panel} p-6 text-sm`} data-testid="no-servers">
        No servers found. Add a <code className="font-mono">servers/&lt;name&gt;/perflab.json</code> manifest
        and reload.
      </div>
    );
  }

  return (
    <form
      ref={formRef}
      onSubmit={submit}
      noValidate
      className={`${panel} space-y-6 p-6`}
      data-testid="new-run-form"
    >
      {(failure || formLevel.length > 0) && (
        <div
          ref={alertRef}
          role="alert"
          className="rounded-md border border-rose-300 bg-rose-50 px-4 py-3 text-sm text-rose-800 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-200"
          data-testid="form-error"
        >
          {failure && (
            <p>
              {failure}
              <SignInHint show={needsToken} />
            </p>
          )}
          {mergeByField(formLevel).map((e) => (
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

      <FieldGroup
        id="servers"
        legend="Servers"
        errors={err("servers")}
        actions={
          <div className="flex gap-3 text-xs">
            <button
              type="button"
              className="text-sky-700 hover:underline dark:text-sky-400"
              onClick={() =>
                update({ servers: servers.filter((s) => s.variant === null).map((s) => s.name) })
              }
              aria-label="Select every server (without variants)"
            >
              all
            </button>
            <button
              type="button"
              className="text-sky-700 hover:underline dark:text-sky-400"
              onClick={() => update({ servers: [] })}
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
            .map((server) => {
              const variants = servers.filter((v) => v.variant !== null && v.base === server.name);
              const checked = form.servers.includes(server.name);
              const any = checked || variants.some((v) => form.servers.includes(v.name));
              return (
                <div
                  key={server.name}
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
                      onChange={(e) => toggleServer(server.name, e.target.checked)}
                      className="mt-0.5 size-4 accent-sky-600"
                      data-testid={`server-${server.name}`}
                    />
                    <span className="min-w-0">
                      <span className="block font-medium">{server.displayName}</span>
                      <span className="block text-xs text-zinc-500 dark:text-zinc-400">
                        {server.language} · {server.runtime}
                      </span>
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
                            checked={form.servers.includes(variant.name)}
                            onChange={(e) => toggleServer(variant.name, e.target.checked)}
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
            })}
        </div>
      </FieldGroup>

      <div className="grid gap-6 sm:grid-cols-2">
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

        {form.scenario === "mcp-tool-call" && (
          <>
            <FormField
              id="tool"
              label="Tool"
              errors={err("tool")}
              hint={
                tools && tools.length === 0
                  ? "The selected servers share no tool"
                  : form.servers.length > 1
                    ? "Tools every selected server offers"
                    : undefined
              }
            >
              {tools && tools.length > 0 ? (
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

            <FormField
              id="session"
              label="Sessions"
              errors={err("session")}
              hint={
                form.session === "per-call"
                  ? "Every call: initialize, notifications/initialized, tools/call, DELETE"
                  : "Each VU opens one MCP session and keeps it"
              }
            >
              <select
                id="session"
                className={inputClass}
                value={form.session}
                onChange={(e) => update({ session: e.target.value as SessionMode })}
                {...aria("session")}
              >
                <option value="per-vu">One per VU</option>
                <option value="per-call">New session per call</option>
              </select>
            </FormField>

            {form.session === "per-vu" && (
              <FormField
                id="sessionsPerVu"
                label="Sessions per VU"
                errors={err("sessionsPerVu")}
                hint="Held open and called in turn (empty: 1); with think time, what each open session costs the server"
              >
                <input
                  id="sessionsPerVu"
                  inputMode="numeric"
                  placeholder="1"
                  className={inputClass}
                  value={form.sessionsPerVu}
                  onChange={(e) => update({ sessionsPerVu: e.target.value })}
                  {...aria("sessionsPerVu")}
                />
              </FormField>
            )}

            <FormField
              id="thinkMs"
              label="Think time (ms)"
              errors={err("thinkMs")}
              hint="Each VU's pause after every call (empty: none, calls back to back)"
            >
              <input
                id="thinkMs"
                inputMode="numeric"
                placeholder="0"
                className={inputClass}
                value={form.thinkMs}
                onChange={(e) => update({ thinkMs: e.target.value })}
                {...aria("thinkMs")}
              />
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
          </>
        )}

        {form.scenario === "http-route" && (
          <FormField id="route" label="Route" errors={err("route")} hint={routeHints[form.route]}>
            <select
              id="route"
              className={inputClass}
              value={form.route}
              onChange={(e) => update({ route: e.target.value as HttpRoute })}
              {...aria("route")}
            >
              {httpRoutes.map((route) => (
                <option key={route} value={route}>
                  GET {route}
                </option>
              ))}
            </select>
          </FormField>
        )}
      </div>

      <div className="grid gap-6 sm:grid-cols-4">
        <FormField
          id="model"
          label="Load model"
          errors={[]}
          // Two columns: one (160 px) cuts "Open: requests per second"; below sm the field is full width.
          className="sm:col-span-2"
          hint={
            form.model === "open"
              ? `${capitalized(ops)} start at a fixed rate whatever the latency (soaks, latency targets)`
              : `VUs ${form.scenario === "http-route" ? "request" : "call"} back to back (throughput)`
          }
        >
          <select
            id="model"
            className={inputClass}
            value={form.model}
            onChange={(e) => update({ model: e.target.value as FormState["model"] })}
          >
            <option value="closed">Closed: virtual users</option>
            <option value="open">{`Open: ${ops} per second`}</option>
          </select>
        </FormField>
        {form.model === "open" && (
          <FormField
            id="maxVus"
            label="Max VUs"
            errors={maxVusErrors}
            hint={
              form.scenario === "http-route"
                ? "VUs k6 may use per level; empty: one per 5 requests/s"
                : "VUs (sessions) k6 may use per level; empty: one per 5 calls/s"
            }
          >
            <input
              id="maxVus"
              type="number"
              inputMode="numeric"
              className={`${inputClass} tabular-nums`}
              value={form.maxVus}
              onChange={(e) => update({ maxVus: e.target.value })}
              aria-invalid={maxVusErrors.length > 0}
            />
          </FormField>
        )}
      </div>

      <div className="grid gap-6 sm:grid-cols-4">
        <FormField
          id="vus"
          label={form.model === "open" ? `${capitalized(ops)} per second` : "Virtual users"}
          errors={vuErrors}
          className="sm:col-span-2"
          hint={
            form.model === "open"
              ? "One load level per rate, e.g. 100, 500, 1000"
              : "One load level per value, e.g. 10, 50, 100"
          }
        >
          <input
            id="vus"
            className={`${inputClass} tabular-nums`}
            value={form.vus}
            inputMode="numeric"
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => update({ vus: e.target.value })}
            {...aria("vus")}
          />
        </FormField>
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
      </div>

      <div className="grid gap-6 sm:grid-cols-2 md:grid-cols-4">
        <NumberField
          id="rounds"
          label="Rounds"
          value={form.rounds}
          errors={err("rounds")}
          onChange={(rounds) => update({ rounds })}
          hint="Interleaved across servers"
        />
        <FormField
          id="driver"
          label="Driver"
          errors={err("driver")}
          hint={
            noEngine ? (
              <span className="text-amber-700 dark:text-amber-300">No worker reaches an engine (below)</span>
            ) : form.driver === "docker" ? (
              "A container per cell, host network, limits applied"
            ) : (
              "A process per server"
            )
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
        <FormField
          id="cpuset"
          label="CPU set"
          errors={err("cpuset")}
          hint={
            form.driver === "docker"
              ? "Pin to CPUs, e.g. 0-1 or 0,2; empty: any"
              : "Applied by the docker driver"
          }
        >
          <input
            id="cpuset"
            type="text"
            inputMode="numeric"
            placeholder="any"
            className={`${inputClass} tabular-nums`}
            value={form.cpuset}
            onChange={(e) => update({ cpuset: e.target.value })}
            {...aria("cpuset")}
          />
        </FormField>
      </div>

      <QueueNotice state={workers} />
      {noEngine && <WarningNote testId="docker-notice">{noEngine}</WarningNote>}
      <div className="flex items-center justify-between gap-4 border-t border-zinc-200 pt-5 dark:border-zinc-800">
        <MatrixPreview
          invalidFields={invalidFields}
          matrixLimits={matrixLimits}
          attempted={attempted}
          servers={form.servers.length}
          levels={levelCount}
          rounds={rounds}
          estimate={estimate}
          warmupSec={warmupSec}
          durationSec={durationSec}
        />
        <button
          type="submit"
          className={`${buttonPrimary} shrink-0`}
          disabled={submitting}
          data-testid="submit-run"
        >
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

function MatrixPreview({
  invalidFields,
  matrixLimits,
  attempted,
  servers,
  levels,
  rounds,
  estimate,
  warmupSec,
  durationSec,
}: {
  /** Labels of the fields the schema refuses as typed: no count holds while there are any. */
  invalidFields: string[];
  /** The matrix's own limits it passes (too many cells, too many hours), as the schema words them. */
  matrixLimits: string[];
  /** A submit was tried: the fields in error are highlighted. */
  attempted: boolean;
  servers: number;
  levels: number;
  rounds: number | null;
  estimate: ReturnType<typeof estimateMatrix> | null;
  warmupSec: number | null;
  durationSec: number | null;
}) {
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  if (invalidFields.length > 0) {
    return (
      <div className="min-w-0 flex-1 text-sm" data-testid="matrix-preview" aria-live="polite">
        <p className="font-medium text-rose-700 dark:text-rose-400" data-testid="preview-invalid">
          {attempted ? "Fix the highlighted fields" : "Fix these fields to see the matrix"}
        </p>
        <p className="text-xs text-zinc-500 dark:text-zinc-400" data-testid="preview-invalid-fields">
          Not valid yet: {invalidFields.join(", ")}
        </p>
      </div>
    );
  }
  return (
    <div className="min-w-0 flex-1 text-sm" data-testid="matrix-preview" aria-live="polite">
      <p className="font-medium tabular-nums">
        {estimate ? (
          <>
            <span data-testid="preview-cells">{plural(estimate.cells, "cell")}</span>
            {estimate.cells > 0 && (
              <>
                {" · "}
                <span data-testid="preview-time">{formatApproxDuration(estimate.totalSec)}</span>
              </>
            )}
          </>
        ) : (
          "—"
        )}
      </p>
      {matrixLimits.map((limit) => (
        <p
          key={limit}
          className="text-xs font-medium text-rose-700 dark:text-rose-400"
          data-testid="preview-limit"
        >
          Too large: {limit}. Choose fewer servers, load levels or rounds, or shorter cells.
        </p>
      ))}
      <p className="text-xs text-zinc-500 dark:text-zinc-400 tabular-nums">
        {plural(servers, "server")} × {plural(levels, "load level")} ×{" "}
        {rounds === null ? "?" : plural(rounds, "round")}
        {estimate && estimate.cells > 0 && warmupSec !== null && durationSec !== null && (
          <>
            {" "}
            · each ≈ {warmupSec > 0 && `${warmupSec} s warm-up + `}
            {durationSec} s load + {DEFAULT_COOLDOWN_SEC} s cool-down + ~{CELL_START_STOP_SEC} s start/stop
          </>
        )}
      </p>
    </div>
  );
}
