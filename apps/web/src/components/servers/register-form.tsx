"use client";

import {
  fieldErrors,
  type RegisteredServerKind,
  type TRegisteredServerDto,
  ZRegisteredServerInput,
} from "@perflab/contracts";
import { useState } from "react";
import { errorsFor, type FieldError, unclaimedErrors } from "@/lib/form-errors";
import { FormField, inputClass } from "../form-field";
import { SignInHint } from "../sign-in-form";
import { buttonPrimary, panel } from "../ui";
import { definitionOf, type FormValues, initialValues } from "./form-values";

const kindChoices: { value: RegisteredServerKind; label: string }[] = [
  { value: "image", label: "Image on the worker's Docker engine" },
  { value: "command", label: "Command on the worker's machine (admins)" },
  { value: "endpoint", label: "Endpoint already running (loopback URL)" },
];

/** The inputs of each kind: id, label, the API field it fills, and a hint. */
type Input = { key: keyof FormValues; label: string; field: string; hint?: string };
const common: Input[] = [
  {
    key: "name",
    label: "Name",
    field: "name",
    hint: "Lowercase letters, digits and dashes: how matrices name it",
  },
  { key: "displayName", label: "Display name", field: "displayName" },
  { key: "language", label: "Language", field: "language" },
  { key: "runtime", label: "Runtime", field: "runtime", hint: "e.g. go 1.26, node 24" },
  { key: "sdkName", label: "SDK", field: "sdk.name" },
  { key: "sdkVersion", label: "SDK version", field: "sdk.version" },
  { key: "mcpPath", label: "MCP path", field: "mcpPath" },
  { key: "healthPath", label: "Health path", field: "healthPath" },
  { key: "tools", label: "Tools", field: "tools", hint: "Comma-separated, e.g. echo, fibonacci" },
];
const byKind: Record<RegisteredServerKind, Input[]> = {
  image: [
    { key: "image", label: "Image", field: "image", hint: "With a tag or digest, on the worker's engine" },
    { key: "port", label: "Port", field: "port", hint: "Left empty: a free port, passed as PORT" },
    { key: "env", label: "Environment", field: "env", hint: "One NAME=value a line" },
  ],
  command: [
    {
      key: "command",
      label: "Command",
      field: "command",
      hint: "The program and its arguments, space-separated",
    },
    { key: "cwd", label: "Working directory", field: "cwd" },
    { key: "port", label: "Port", field: "port", hint: "Left empty: a free port, passed as PORT" },
    { key: "env", label: "Environment", field: "env", hint: "One NAME=value a line" },
  ],
  endpoint: [
    {
      key: "url",
      label: "URL",
      field: "url",
      hint: "http://127.0.0.1:<port>: load never leaves the machine",
    },
    { key: "runtimeUrl", label: "Runtime probe URL", field: "runtimeUrl", hint: "Optional JSON report" },
  ],
};

type Failure = { message: string; signIn: boolean };

/** Registers a server in the workspace; the API's own schema checks it first, naming the field. */
export function RegisterServerForm({
  onRegistered,
}: {
  onRegistered: (server: TRegisteredServerDto) => void;
}) {
  const [values, setValues] = useState<FormValues>(initialValues);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const inputs = [...common, ...byKind[values.kind]];
  const match = (input: Input) => ({ exact: [input.field], prefix: `${input.field}.` });

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setFailure(null);
    const parsed = ZRegisteredServerInput.safeParse(definitionOf(values));
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors([]);
    setBusy(true);
    try {
      const response = await fetch("/api/v1/servers", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(parsed.data),
      });
      const body = await response.json().catch(() => null);
      if (response.status === 201) {
        onRegistered(body as TRegisteredServerDto);
        setValues(initialValues);
      } else if (response.status !== 401 && Array.isArray(body?.errors)) {
        setErrors(body.errors);
      } else {
        const message =
          body?.detail ?? `The server was not registered (the lab answered ${response.status}).`;
        setFailure({ message, signIn: response.status === 401 });
      }
    } catch {
      setFailure({ message: "The server was not registered: the lab could not be reached.", signIn: false });
    }
    setBusy(false);
  };

  const formLevel = unclaimedErrors(errors, [{ exact: ["kind"] }, ...inputs.map(match)]);
  const set = (key: keyof FormValues, value: string) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors([]);
  };
  return (
    <form
      onSubmit={submit}
      noValidate
      className={`${panel} max-w-3xl space-y-5 p-6`}
      data-testid="server-form"
    >
      <h2 className="text-lg font-semibold">Register a server</h2>
      {(failure || formLevel.length > 0) && (
        <div
          role="alert"
          className="rounded-md border border-rose-300 bg-rose-50 px-4 py-3 text-sm text-rose-800 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-200"
          data-testid="form-error"
        >
          {failure?.message ?? formLevel.map((e) => `${e.field}: ${e.message}`).join("; ")}
          <SignInHint show={failure?.signIn ?? false} />
        </div>
      )}
      <FormField id="server-kind" label="Kind" errors={errorsFor(errors, { exact: ["kind"] })}>
        <select
          id="server-kind"
          className={`${inputClass} sm:max-w-md`}
          value={values.kind}
          onChange={(e) => set("kind", e.target.value)}
        >
          {kindChoices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </FormField>
      <div className="grid gap-6 sm:grid-cols-2">
        {inputs.map((input) => {
          const id = `server-${input.key}`;
          const own = errorsFor(errors, match(input));
          const multiline = input.key === "env";
          return (
            <FormField key={id} id={id} label={input.label} errors={own} hint={input.hint}>
              {multiline ? (
                <textarea
                  id={id}
                  rows={3}
                  className={`${inputClass} font-mono`}
                  value={values[input.key]}
                  onChange={(e) => set(input.key, e.target.value)}
                  aria-invalid={own.length > 0}
                />
              ) : (
                <input
                  id={id}
                  className={inputClass}
                  value={values[input.key]}
                  autoComplete="off"
                  onChange={(e) => set(input.key, e.target.value)}
                  aria-invalid={own.length > 0}
                />
              )}
            </FormField>
          );
        })}
      </div>
      <button type="submit" className={buttonPrimary} disabled={busy} data-testid="server-register">
        {busy ? "Registering…" : "Register"}
      </button>
    </form>
  );
}
