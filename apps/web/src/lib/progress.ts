import type { CellStatus, RunStatus } from "./dto";

/** The bar's colour, as the run's status badge says it (a finished run's bar in its outcome's tone). */
export type ProgressTone = "sky" | "amber" | "rose" | "zinc";

export type ProgressView = {
  /** What the bar fills, in cells: fractional while cells run. */
  value: number;
  /** "3/4": cells done while the run goes on; cells that ended with a result once it has ended. */
  label: string;
  /** What the bar counts, its accessible name. */
  name: string;
  /** The counts in words, for a tooltip and screen readers: "1 of 4 cells with a result, 3 cancelled". */
  detail: string;
  tone: ProgressTone;
};

const endTone: Record<RunStatus, ProgressTone> = {
  queued: "sky",
  ingesting: "sky",
  running: "sky",
  succeeded: "sky",
  partial: "amber",
  failed: "rose",
  cancelled: "zinc",
};

/**
 * What a run's progress bar shows. While the run goes on it fills with the cells done (failed and
 * cancelled ones too: they are behind it), amber once one failed. Once it has ended, a full bar would
 * say "all measured" of a cancelled run whose cells never ran: it then fills only with the cells that
 * succeeded, in the tone of the run's badge (grey cancelled, red failed, amber partial).
 */
export function progressView({
  status,
  total,
  done,
  failed,
  succeeded,
  progress = done,
}: {
  status: RunStatus;
  total: number;
  /** Cells ended, whatever their outcome. */
  done: number;
  failed: number;
  /** Cells that ended with a result. */
  succeeded: number;
  /** Cells done plus the running cells' elapsed share. */
  progress?: number;
}): ProgressView {
  const cells = (n: number) => `${n} ${n === 1 ? "cell" : "cells"}`;
  if (status === "queued" || status === "ingesting" || status === "running") {
    return {
      value: progress,
      label: `${done}/${total}`,
      name: "Cells done",
      detail: `${done} of ${cells(total)} done${failed > 0 ? `, ${failed} failed` : ""}`,
      tone: failed > 0 ? "amber" : "sky",
    };
  }
  // Of an ended run, the cells neither succeeded nor failed were cancelled (or are being stopped).
  const cancelled = Math.max(0, total - succeeded - failed);
  return {
    value: succeeded,
    label: `${succeeded}/${total}`,
    name: "Cells with a result",
    detail: [
      `${succeeded} of ${cells(total)} with a result`,
      ...(failed > 0 ? [`${failed} failed`] : []),
      ...(cancelled > 0 ? [`${cancelled} cancelled`] : []),
    ].join(", "),
    tone: endTone[status],
  };
}

/** Cells that ended with a result: what an ended run's bar counts. */
export function succeededCells(cells: readonly { status: CellStatus }[]): number {
  return cells.filter((c) => c.status === "succeeded").length;
}
