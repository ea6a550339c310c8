"use client";

import type { StudyVariant } from "@perflab/contracts";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { formatApproxDuration } from "@/lib/matrix-preview";
import type { StudyView } from "@/lib/studies";
import { dockerNotice, type WorkersState } from "@/lib/workers";
import { SignInLink } from "./sign-in-form";
import { StudyRows } from "./study-rows";
import { buttonPrimary, panel } from "./ui";
import { useWorkers } from "./use-workers";
import { QueueNotice, WarningNote } from "./workers-notice";

export function StudyList({ studies }: { studies: StudyView[] }) {
  const workers = useWorkers();
  return (
    <div className="space-y-4">
      <QueueNotice state={workers} />
      {studies.map((study) => (
        <StudyCard key={study.id} study={study} workers={workers} />
      ))}
    </div>
  );
}

const variantLabel: Record<StudyVariant, string> = { quick: "Quick", published: "As published" };

function StudyCard({ study, workers }: { study: StudyView; workers: WorkersState }) {
  const router = useRouter();
  const [variant, setVariant] = useState<StudyVariant>("quick");
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [needsToken, setNeedsToken] = useState(false);
  const chosen = study.variants[variant];
  const noEngine = dockerNotice(workers, chosen.spec.driver ?? "local");

  const queue = async () => {
    setSubmitting(true);
    setFailure(null);
    setNeedsToken(false);
    try {
      const response = await fetch("/api/v1/matrices", {
        method: "POST",
        headers: { "content-type": "application/json", "x-perflab-client": "web" },
        body: JSON.stringify(chosen.spec),
      });
      const body = await response.json().catch(() => null);
      if (response.status === 201 && body?.runId) {
        router.push(`/runs/${body.runId}`);
        return;
      }
      setNeedsToken(response.status === 401);
      const fields = Array.isArray(body?.errors)
        ? (body.errors as { field: string; message: string }[]).map((e) => `${e.field}: ${e.message}`)
        : [];
      setFailure(
        [body?.detail ?? body?.title ?? `The server answered ${response.status}.`, ...fields].join(" "),
      );
    } catch {
      setFailure("The server could not be reached.");
    }
    setSubmitting(false);
  };

  return (
    <section
      className={`${panel} p-5`}
      aria-labelledby={`study-${study.id}`}
      data-testid={`study-${study.id}`}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 id={`study-${study.id}`} className="text-base font-semibold">
            {study.title}
          </h2>
          <p className="text-xs text-zinc-500 dark:text-zinc-400">From: {study.source}</p>
        </div>
        <fieldset className="flex shrink-0 rounded-md border border-zinc-300 p-0.5 text-xs dark:border-zinc-700">
          <legend className="sr-only">Variant of {study.title}</legend>
          {(["quick", "published"] as const).map((v) => (
            <label
              key={v}
              className={`cursor-pointer rounded px-2 py-1 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-sky-600 dark:has-[:focus-visible]:ring-sky-400 ${
                variant === v
                  ? "bg-zinc-200 font-medium text-zinc-900 dark:bg-zinc-800 dark:text-zinc-50"
                  : "text-zinc-600 dark:text-zinc-400"
              }`}
            >
              <input
                type="radio"
                className="sr-only"
                name={`variant-${study.id}`}
                value={v}
                checked={variant === v}
                onChange={() => setVariant(v)}
              />
              {variantLabel[v]}
            </label>
          ))}
        </fieldset>
      </div>
      <p className="mt-3 text-sm">{study.measures}</p>
      <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-zinc-500 dark:text-zinc-400">Servers</dt>
        <dd>
          <StudyRows studyId={study.id} rows={study.rows} />
        </dd>
        <dt className="text-zinc-500 dark:text-zinc-400">Workloads</dt>
        <dd>
          {/* A list: a workload's own parts are already joined with " · ". */}
          <ul data-testid={`study-${study.id}-workloads`}>
            {study.workloads.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </dd>
        <dt className="text-zinc-500 dark:text-zinc-400">Load</dt>
        <dd data-testid={`study-${study.id}-load`}>{chosen.load}</dd>
      </dl>
      {noEngine && (
        <WarningNote testId={`study-${study.id}-docker`} className="mt-3">
          {noEngine}
        </WarningNote>
      )}
      {failure && (
        <p className="mt-3 text-sm text-rose-600 dark:text-rose-400" role="alert">
          {failure} {needsToken && <SignInLink />}
        </p>
      )}
      <div className="mt-4 flex items-center justify-between gap-4 border-t border-zinc-200 pt-4 dark:border-zinc-800">
        <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid={`study-${study.id}-size`}>
          {chosen.cells} {chosen.cells === 1 ? "cell" : "cells"} · {formatApproxDuration(chosen.totalSec)}
        </p>
        <button
          type="button"
          className={buttonPrimary}
          disabled={submitting || study.servers.length === 0}
          onClick={() => void queue()}
          data-testid={`study-${study.id}-queue`}
        >
          {submitting ? "Queuing…" : `Queue ${variant === "quick" ? "quick run" : "study"}`}
        </button>
      </div>
    </section>
  );
}
