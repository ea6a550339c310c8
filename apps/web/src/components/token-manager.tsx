"use client";

import { fieldErrors, type TCreatedToken, type TTokenDto, ZCreateToken } from "@perflab/contracts";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { errorsFor, type FieldError, unclaimedErrors } from "@/lib/form-errors";
import { formatDateTime } from "@/lib/format";
import { FormField, inputClass } from "./form-field";
import { SignInHint } from "./sign-in-form";
import { buttonPrimary, buttonSecondary, panel, scrollPanel, table, tbody, td, th } from "./ui";

const expiryChoices = [
  { value: "", label: "Never" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In 365 days" },
];

const roleChoices = [
  { value: "member", label: "Member: queue, upload, cancel, share" },
  { value: "admin", label: "Admin: also manage tokens" },
] as const;

const fields = {
  name: { exact: ["name"] },
  expires: { exact: ["expiresInDays"] },
  role: { exact: ["role"] },
};

type Failure = { message: string; signIn: boolean };

/** A failed answer's message; a 401 also offers the sign-in form. */
async function failureOf(
  response: Response,
  what: string,
): Promise<{ failure: Failure; errors: FieldError[] }> {
  const body = await response.json().catch(() => null);
  return {
    failure: {
      message: body?.detail ?? `${what} (the server answered ${response.status}).`,
      signIn: response.status === 401,
    },
    errors: response.status === 401 || !Array.isArray(body?.errors) ? [] : body.errors,
  };
}

function FailureAlert({ failure }: { failure: Failure }) {
  return (
    <div
      role="alert"
      className="rounded-md border border-rose-300 bg-rose-50 px-4 py-3 text-sm text-rose-800 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-200"
      data-testid="form-error"
    >
      {failure.message}
      <SignInHint show={failure.signIn} />
    </div>
  );
}

/**
 * The workspace's API tokens: create one (its secret shown once), revoke one. A member token of a
 * lab that needs tokens sees itself only, and may revoke itself.
 */
export function TokenManager({
  initialTokens,
  currentTokenId,
  canManage = true,
}: {
  initialTokens: TTokenDto[];
  /** The token this browser is signed in with, marked in the list. */
  currentTokenId: string | null;
  /** Whether this caller may create tokens and revoke others. */
  canManage?: boolean;
}) {
  const router = useRouter();
  const [tokens, setTokens] = useState(initialTokens);
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [role, setRole] = useState<TTokenDto["role"]>("member");
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<TCreatedToken | null>(null);

  const create = async (event: React.FormEvent) => {
    event.preventDefault();
    setFailure(null);
    const input = { name, role, ...(expires ? { expiresInDays: Number(expires) } : {}) };
    // The API's own schema first, so the form refuses what the API would, without a round trip.
    const parsed = ZCreateToken.safeParse(input);
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors([]);
    setCreating(true);
    try {
      const response = await fetch("/api/v1/tokens", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(parsed.data),
      });
      if (response.status === 201) {
        const body = (await response.json()) as TCreatedToken;
        setCreated(body);
        setTokens((list) => [body.token, ...list]);
        setName("");
        setExpires("");
        setRole("member");
      } else {
        const result = await failureOf(response, "The token was not created");
        setErrors(result.errors);
        setFailure(result.errors.length > 0 ? null : result.failure);
      }
    } catch {
      setFailure({ message: "The token was not created: the server could not be reached.", signIn: false });
    }
    setCreating(false);
  };

  const revoked = (token: TTokenDto) => {
    setTokens((list) => list.map((t) => (t.id === token.id ? token : t)));
    // Revoking this browser's own token signs it out: the header and the page must say so.
    if (token.id === currentTokenId) router.refresh();
  };

  const formLevel = unclaimedErrors(errors, Object.values(fields));

  return (
    <div className="space-y-8">
      {created && <CreatedSecret created={created} onDone={() => setCreated(null)} />}

      {canManage && (
        <form
          onSubmit={create}
          noValidate
          className={`${panel} max-w-3xl space-y-5 p-6`}
          data-testid="token-form"
        >
          <h2 className="text-lg font-semibold">New token</h2>
          {(failure || formLevel.length > 0) && (
            <FailureAlert
              failure={
                failure ?? {
                  message: formLevel.map((e) => `${e.field}: ${e.message}`).join("; "),
                  signIn: false,
                }
              }
            />
          )}
          <div className="grid gap-6 sm:grid-cols-3">
            <FormField
              id="token-name"
              label="Name"
              errors={errorsFor(errors, fields.name)}
              hint="Who or what uses it, e.g. ci or alice's laptop"
              className="sm:col-span-2"
            >
              <input
                id="token-name"
                className={inputClass}
                value={name}
                maxLength={200}
                autoComplete="off"
                onChange={(e) => {
                  setName(e.target.value);
                  setErrors([]);
                }}
                aria-invalid={errorsFor(errors, fields.name).length > 0}
              />
            </FormField>
            <FormField id="token-expires" label="Expires" errors={errorsFor(errors, fields.expires)}>
              <select
                id="token-expires"
                className={inputClass}
                value={expires}
                onChange={(e) => setExpires(e.target.value)}
                aria-invalid={errorsFor(errors, fields.expires).length > 0}
              >
                {expiryChoices.map((choice) => (
                  <option key={choice.value} value={choice.value}>
                    {choice.label}
                  </option>
                ))}
              </select>
            </FormField>
            <FormField
              id="token-role"
              label="Role"
              errors={errorsFor(errors, fields.role)}
              hint="Matters where the lab needs tokens (PERFLAB_ACCESS=token or private)"
              className="sm:col-span-3"
            >
              <select
                id="token-role"
                className={`${inputClass} sm:max-w-sm`}
                value={role}
                onChange={(e) => setRole(e.target.value as TTokenDto["role"])}
                aria-invalid={errorsFor(errors, fields.role).length > 0}
              >
                {roleChoices.map((choice) => (
                  <option key={choice.value} value={choice.value}>
                    {choice.label}
                  </option>
                ))}
              </select>
            </FormField>
          </div>
          <div className="flex justify-end border-t border-zinc-200 pt-5 dark:border-zinc-800">
            <button type="submit" className={buttonPrimary} disabled={creating} data-testid="create-token">
              {creating ? "Creating…" : "Create token"}
            </button>
          </div>
        </form>
      )}

      <section aria-label="Tokens">
        <h2 className="mb-3 text-lg font-semibold">Tokens</h2>
        {tokens.length === 0 ? (
          <div
            className={`${panel} px-6 py-10 text-center text-sm text-zinc-600 dark:text-zinc-400`}
            data-testid="tokens-empty"
          >
            No tokens yet. Create one above for a CI job, the CLI or signing in here.
          </div>
        ) : (
          <div className={scrollPanel}>
            <table className={table} data-testid="tokens-table">
              <thead>
                <tr>
                  <th className={th}>Name</th>
                  <th className={th}>Token</th>
                  <th className={th}>Role</th>
                  <th className={th}>Created</th>
                  <th className={th}>Last used</th>
                  <th className={th}>Expires</th>
                  <th className={th}>State</th>
                  <th className={th}>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody className={tbody}>
                {tokens.map((token) => (
                  <TokenRow
                    key={token.id}
                    token={token}
                    current={token.id === currentTokenId}
                    onRevoked={revoked}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}

/** The new token's secret, this once, with how to use it. */
function CreatedSecret({ created, onDone }: { created: TCreatedToken; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.secret);
      setCopied(true);
    } catch {
      // No clipboard API off localhost over plain HTTP: select the text for a manual copy.
      input.current?.select();
    }
  };
  return (
    <section
      aria-label="New token"
      className="max-w-3xl space-y-3 rounded-lg border border-emerald-300 bg-emerald-50 p-5 text-sm text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950/60 dark:text-emerald-100"
      data-testid="token-created"
    >
      <p className="font-medium">
        Token “{created.token.name}” created. Copy it now: it will not be shown again.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor="token-secret" className="sr-only">
          The new token
        </label>
        <input
          id="token-secret"
          ref={input}
          readOnly
          value={created.secret}
          onFocus={(e) => e.currentTarget.select()}
          data-testid="token-secret"
          className="w-[32rem] max-w-full rounded-md border border-zinc-300 bg-white px-2 py-1 font-mono text-xs text-zinc-900 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100"
        />
        <button type="button" className={buttonSecondary} onClick={copy} data-testid="token-copy">
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" className={buttonSecondary} onClick={onDone}>
          Done
        </button>
      </div>
      <p className="text-emerald-900 dark:text-emerald-200">
        Give it to the CLI or a CI job as <code className="font-mono">PERFLAB_TOKEN</code>, send it as{" "}
        <code className="font-mono">Authorization: Bearer &lt;token&gt;</code>, or sign in with it here.
      </p>
    </section>
  );
}

const stateTone: Record<TTokenDto["state"], string> = {
  active:
    "bg-emerald-50 text-emerald-700 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-300 dark:ring-emerald-800",
  expired:
    "bg-amber-50 text-amber-800 ring-amber-300 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-800",
  revoked: "bg-zinc-100 text-zinc-500 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-400 dark:ring-zinc-700",
};

function TokenRow({
  token,
  current,
  onRevoked,
}: {
  token: TTokenDto;
  current: boolean;
  onRevoked: (token: TTokenDto) => void;
}) {
  const [state, setState] = useState<"idle" | "confirm" | "revoking">("idle");
  const [failure, setFailure] = useState<Failure | null>(null);

  const revoke = async () => {
    setState("revoking");
    setFailure(null);
    try {
      const response = await fetch(`/api/v1/tokens/${encodeURIComponent(token.id)}`, { method: "DELETE" });
      if (response.ok) {
        onRevoked((await response.json()) as TTokenDto);
      } else {
        setFailure((await failureOf(response, "The token was not revoked")).failure);
      }
    } catch {
      setFailure({ message: "The token was not revoked: the server could not be reached.", signIn: false });
    }
    setState("idle");
  };

  return (
    <tr data-testid="token-row" data-token-name={token.name} data-token-id={token.id}>
      <td className={`${td} font-medium`}>
        {token.name}
        {current && <span className="ml-2 text-xs font-normal text-zinc-500">this browser</span>}
      </td>
      <td className={`${td} font-mono text-xs`} data-testid="token-prefix">
        {token.prefix}…
      </td>
      <td className={td} data-testid="token-role">
        {token.role}
      </td>
      <td className={td}>{formatDateTime(token.createdAt)}</td>
      <td className={td}>{token.lastUsedAt ? formatDateTime(token.lastUsedAt) : "never"}</td>
      <td className={td}>{token.expiresAt ? formatDateTime(token.expiresAt) : "never"}</td>
      <td className={td}>
        <span
          data-testid="token-state"
          data-state={token.state}
          className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${stateTone[token.state]}`}
        >
          {token.state}
        </span>
      </td>
      <td className={`${td} text-right`}>
        {token.state === "active" && (
          <div className="flex flex-wrap items-center justify-end gap-2">
            {state === "confirm" ? (
              <>
                <span className="text-sm">
                  {current ? "Revoke? It signs you out." : "Revoke? It stops at once."}
                </span>
                <button
                  type="button"
                  className={buttonSecondary}
                  onClick={revoke}
                  data-testid="revoke-confirm"
                >
                  Yes, revoke
                </button>
                <button type="button" className={buttonSecondary} onClick={() => setState("idle")}>
                  Keep
                </button>
              </>
            ) : (
              <button
                type="button"
                className={buttonSecondary}
                disabled={state === "revoking"}
                onClick={() => setState("confirm")}
                data-testid="revoke-button"
              >
                {state === "revoking" ? "Revoking…" : "Revoke"}
              </button>
            )}
          </div>
        )}
        {failure && (
          <div className="mt-1 whitespace-normal text-left">
            <FailureAlert failure={failure} />
          </div>
        )}
      </td>
    </tr>
  );
}
