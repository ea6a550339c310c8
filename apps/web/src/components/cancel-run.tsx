"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { SignInHint } from "./sign-in-form";
import { buttonSecondary } from "./ui";

/**
 * Cancels a queued or running run (POST /api/v1/runs/{id}/cancel), after a confirmation: queued
 * cells never run, a running cell is stopped unmeasured, finished cells keep their results.
 */
export function CancelRun({ runId }: { runId: string }) {
  const router = useRouter();
  const [state, setState] = useState<"idle" | "confirm" | "cancelling">("idle");
  const [error, setError] = useState<string | null>(null);
  const [needsToken, setNeedsToken] = useState(false);

  async function cancel() {
    setState("cancelling");
    setError(null);
    setNeedsToken(false);
    try {
      const response = await fetch(`/api/v1/runs/${runId}/cancel`, { method: "POST" });
      if (!response.ok) {
        const body = (await response.json().catch(() => null)) as { detail?: string } | null;
        setError(body?.detail ?? `The run was not cancelled (${response.status}).`);
        setNeedsToken(response.status === 401);
        setState("idle");
        return;
      }
      router.refresh();
    } catch {
      setError("The run was not cancelled: the server did not answer.");
      setState("idle");
    }
  }

  return (
    <div className="flex flex-wrap items-center gap-2">
      {state === "confirm" ? (
        <>
          <span className="text-sm">Stop this run? Cells not yet finished get no result.</span>
          <button type="button" className={buttonSecondary} onClick={cancel} data-testid="cancel-confirm">
            Yes, cancel the run
          </button>
          <button type="button" className={buttonSecondary} onClick={() => setState("idle")}>
            Keep running
          </button>
        </>
      ) : (
        <button
          type="button"
          className={buttonSecondary}
          disabled={state === "cancelling"}
          onClick={() => setState("confirm")}
          data-testid="cancel-button"
        >
          {state === "cancelling" ? "Cancelling…" : "Cancel run"}
        </button>
      )}
      {error && (
        <p role="alert" className="text-sm text-rose-600 dark:text-rose-400">
          {error}
          <SignInHint show={needsToken} />
        </p>
      )}
    </div>
  );
}
