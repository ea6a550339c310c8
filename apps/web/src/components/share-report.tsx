"use client";

import { reportVisibilities } from "@perflab/contracts";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import type { CreatedReportDto } from "@/lib/report-dto";
import { SignInHint, SignInLink } from "./sign-in-form";
import { buttonSecondary, link } from "./ui";

type Visibility = (typeof reportVisibilities)[number];

const visibilityLabels: Record<Visibility, string> = {
  private: "Private (token holders only)",
  unlisted: "Unlisted (anyone with the link)",
  public: "Public",
};

type State =
  | { kind: "idle" }
  | { kind: "creating" }
  | { kind: "created"; url: string; copied: boolean }
  | { kind: "error"; message: string; signIn: boolean };

/**
 * Freezes the finished run into a report and shows its permalink with a copy button. A private
 * report needs the sharer's token, so that choice offers the sign-in (coming back here) instead.
 */
export function ShareReport({ runId, signedIn = false }: { runId: string; signedIn?: boolean }) {
  const router = useRouter();
  const [state, setState] = useState<State>({ kind: "idle" });
  const [visibility, setVisibility] = useState<Visibility>("unlisted");
  const input = useRef<HTMLInputElement>(null);
  // A private report is the sharer's: chosen without a sign-in, the sign-in comes first.
  const needsSignIn = visibility === "private" && !signedIn;

  async function share() {
    setState({ kind: "creating" });
    try {
      const response = await fetch("/api/v1/reports", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ runId, visibility }),
      });
      const body = (await response.json().catch(() => null)) as
        | (CreatedReportDto & { detail?: string })
        | null;
      if (!response.ok || !body?.slug) {
        setState({
          kind: "error",
          message: body?.detail ?? `The report was not created (${response.status}).`,
          signIn: response.status === 401,
        });
        return;
      }
      // The browser knows the address it reached us by, even behind a proxy.
      setState({ kind: "created", url: `${window.location.origin}/r/${body.slug}`, copied: false });
      // The page's list of this run's reports gains the new one.
      router.refresh();
    } catch {
      setState({
        kind: "error",
        message: "The report was not created: the server did not answer.",
        signIn: false,
      });
    }
  }

  async function copy(url: string) {
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      // No clipboard API off localhost over plain HTTP: select the text for a manual copy.
      input.current?.select();
      return;
    }
    setState({ kind: "created", url, copied: true });
  }

  if (state.kind === "created") {
    return (
      <div className="flex flex-wrap items-center gap-2" data-testid="share-result">
        <label htmlFor="report-permalink" className="text-sm text-zinc-500 dark:text-zinc-400">
          Permalink
        </label>
        <input
          id="report-permalink"
          ref={input}
          readOnly
          value={state.url}
          onFocus={(e) => e.currentTarget.select()}
          data-testid="share-url"
          className="w-96 max-w-full rounded-md border border-zinc-300 bg-zinc-50 px-2 py-1 font-mono text-xs dark:border-zinc-700 dark:bg-zinc-950"
        />
        <button
          type="button"
          className={buttonSecondary}
          onClick={() => copy(state.url)}
          data-testid="share-copy"
        >
          {state.copied ? "Copied" : "Copy"}
        </button>
        <a href={state.url} className={`${link} text-sm`} data-testid="share-open">
          Open
        </a>
      </div>
    );
  }
  return (
    <div className="flex flex-wrap items-center gap-2">
      <label htmlFor="report-visibility" className="sr-only">
        Visibility
      </label>
      <select
        id="report-visibility"
        value={visibility}
        onChange={(e) => setVisibility(e.target.value as Visibility)}
        data-testid="share-visibility"
        className="rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm shadow-sm dark:border-zinc-700 dark:bg-zinc-900"
      >
        {reportVisibilities.map((v) => (
          <option key={v} value={v}>
            {visibilityLabels[v]}
          </option>
        ))}
      </select>
      <button
        type="button"
        className={buttonSecondary}
        onClick={share}
        disabled={state.kind === "creating" || needsSignIn}
        data-testid="share-button"
        title="Freeze this run's results behind a permalink"
      >
        {state.kind === "creating" ? "Sharing…" : "Share"}
      </button>
      {needsSignIn && (
        <span className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="share-sign-in">
          A private report is shared with a token:{" "}
          <SignInLink className={`${link} font-medium`}>Sign in</SignInLink> first.
        </span>
      )}
      {state.kind === "error" && (
        <span role="alert" className="text-sm text-rose-600 dark:text-rose-400" data-testid="share-error">
          {state.message}
          <SignInHint show={state.signIn} />
        </span>
      )}
    </div>
  );
}
