"use client";

import type { ServerBuildState } from "@perflab/catalog";
import { createMatrixSpecSchema, type DriverId, scenarioModule, type TServerInfo } from "@perflab/contracts";
import { useMemo, useState } from "react";
import { errorsFor, type FieldError, mergeByField, unclaimedErrors } from "@/lib/form-errors";
import { operationWord } from "@/lib/labels";
import { validateSpec } from "@/lib/spec-errors";
import { dockerNotice } from "@/lib/workers";
import { FormField, inputClass } from "./form-field";
import {
  type BaseField,
  baseMatch,
  commonTools,
  type FormState,
  formFields,
  initialFormState,
  paramMatch,
  patchForm,
  toSpecInput,
  withParam,
} from "./new-run/form-state";
import { LoadFields } from "./new-run/load-fields";
import { MatrixPreview, useMatrixPreview } from "./new-run/matrix-preview";
import { RunFields } from "./new-run/run-fields";
import { ScenarioFields } from "./new-run/scenario-fields";
import { ServerPicker } from "./new-run/server-picker";
import { useSubmitRun } from "./new-run/use-submit-run";
import { SignInHint } from "./sign-in-form";
import { buttonPrimary, panel } from "./ui";
import { useWorkers } from "./use-workers";
import { QueueNotice, WarningNote } from "./workers-notice";

export type ScenarioOption = { id: string; title: string; description: string };

export function NewRunForm({
  servers,
  builds = {},
  scenarios,
  defaultDriver = "local",
}: {
  servers: TServerInfo[];
  /** Each lab server's native build on this machine, shown in the server picker. */
  builds?: Record<string, ServerBuildState>;
  scenarios: ScenarioOption[];
  /** The driver the form starts on: the lab's (PERFLAB_DEFAULT_DRIVER), local unless configured. */
  defaultDriver?: DriverId;
}) {
  // The API's own schema, built from the same catalog, so the form rejects exactly what the API would.
  const schema = useMemo(
    () =>
      createMatrixSpecSchema({
        servers: servers.map(({ name, tools, protocols }) => ({ name, tools, protocols })),
      }),
    [servers],
  );
  const [form, setForm] = useState(() => initialFormState(servers, scenarios[0]?.id ?? "", defaultDriver));
  // Every field's errors at once, the scenario's parameters' too (see validateSpec).
  const validate = (next: FormState) => validateSpec(schema, toSpecInput(next));
  const { errors, setErrors, attempted, submitting, failure, needsToken, alertRef, formRef, submit } =
    useSubmitRun(() => validate(form));
  const module = scenarioModule(form.scenario);
  // Who would take the run: no worker, or docker chosen where no worker reaches an engine, is said here.
  const workers = useWorkers();
  const noEngine = dockerNotice(workers, form.driver);

  const update = (patch: Partial<FormState>) => {
    const next = patchForm(form, patch, servers);
    setForm(next);
    // Errors follow the input live once the user has tried to submit.
    if (attempted) setErrors(validate(next).errors);
  };

  const err = (key: BaseField) => errorsFor(errors, baseMatch(key));
  const aria = (key: BaseField) => ({ "aria-invalid": err(key).length > 0 });
  const formLevel = unclaimedErrors(
    errors,
    formFields(module).map((f) => f.match),
  );
  const preview = useMatrixPreview(schema, form, operationWord(form.scenario));

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
      <FormAlert failure={failure} needsToken={needsToken} errors={formLevel} alertRef={alertRef} />

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

      <ServerPicker
        servers={servers}
        builds={builds}
        selected={form.servers}
        protocol={module?.protocol ?? "mcp"}
        errors={err("servers")}
        onChange={(selected) => update({ servers: selected })}
      />

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
        <ScenarioFields
          fields={module?.form ?? []}
          values={form.params[form.scenario] ?? {}}
          errorsOf={(name) => errorsFor(errors, paramMatch(name))}
          onChange={(name, value) => update(withParam(form, name, value))}
          tools={commonTools(servers, form.servers)}
          serverCount={form.servers.length}
        />
      </div>

      <LoadFields form={form} update={update} err={err} />
      <RunFields form={form} update={update} err={err} noEngine={noEngine !== null} />

      <QueueNotice state={workers} />
      {noEngine && <WarningNote testId="docker-notice">{noEngine}</WarningNote>}
      <div className="flex items-center justify-between gap-4 border-t border-zinc-200 pt-5 dark:border-zinc-800">
        <MatrixPreview preview={preview} attempted={attempted} />
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

/** The server's refusal and the errors no field shows, above the form. */
function FormAlert({
  failure,
  needsToken,
  errors,
  alertRef,
}: {
  failure: string | null;
  needsToken: boolean;
  errors: FieldError[];
  alertRef: React.RefObject<HTMLDivElement | null>;
}) {
  if (!failure && errors.length === 0) return null;
  return (
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
      {mergeByField(errors).map((e) => (
        <p key={e.field} data-testid={`error-${e.field}`}>
          <span className="font-mono">{e.field}</span>: {e.message}
        </p>
      ))}
    </div>
  );
}
