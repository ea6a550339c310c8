"use client";

import { queueNotice, type WorkersState } from "@/lib/workers";
import { useWorkers } from "./use-workers";

/** An amber box saying what would keep a run from running as asked. */
export function WarningNote({
  children,
  testId,
  className = "",
}: {
  children: React.ReactNode;
  testId: string;
  className?: string;
}) {
  return (
    <p
      className={`rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-200 ${className}`}
      data-testid={testId}
      role="status"
    >
      {children}
    </p>
  );
}

/** Says so when no worker is running to take queued cells; nothing otherwise. */
export function QueueNotice({ state, className }: { state: WorkersState; className?: string }) {
  const notice = queueNotice(state);
  if (!notice) return null;
  return (
    <WarningNote testId="workers-notice" className={className}>
      {notice}
    </WarningNote>
  );
}

/** QueueNotice for a page of its own: reads the workers itself. */
export function WorkersNotice({ className }: { className?: string }) {
  return <QueueNotice state={useWorkers()} className={className} />;
}
