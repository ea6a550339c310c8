import { type createMatrixSpecSchema, MAX_RATE, roundsLabel, scenarioModule } from "@perflab/contracts";
import { useMemo } from "react";
import { errorsFor } from "@/lib/form-errors";
import { capitalized } from "@/lib/labels";
import { CELL_START_STOP_SEC, estimateMatrix, formatApproxDuration, splitVuList } from "@/lib/matrix-preview";
import { validateSpec } from "@/lib/spec-errors";
import { DEFAULT_COOLDOWN_SEC, type FormState, formFields, toSpecInput, wholeNumber } from "./form-state";

type Preview = {
  /** Labels of the fields the schema refuses as typed: no count holds while there are any. */
  invalidFields: string[];
  /** The matrix's own limits it passes (too many cells, too many hours), as the schema words them. */
  matrixLimits: string[];
  servers: number;
  levels: number;
  /** The fixed rounds, or an adaptive matrix's minimum and most (estimated at the most). */
  rounds: { min: number; max: number } | null;
  estimate: ReturnType<typeof estimateMatrix> | null;
  warmupSec: number | null;
  durationSec: number | null;
};

/** What the form would queue, as far as the schema accepts it; `ops` names the scenario's operations. */
export function useMatrixPreview(
  schema: ReturnType<typeof createMatrixSpecSchema>,
  form: FormState,
  ops: string,
): Preview {
  // Levels the schema would take, each once: what the preview counts while others show errors.
  const levels = new Set(
    splitVuList(form.vus)
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
    const fields = formFields(scenarioModule(form.scenario));
    const invalid = fields.filter(
      ({ key, match }) =>
        errorsFor(refused, match).some((e) => key !== "vus" || !e.field.endsWith(".maxVus")) ||
        (key === "maxVus" && refused.some((e) => e.field.endsWith(".maxVus"))),
    );
    return {
      invalidFields: invalid.map(({ key, label }) =>
        key === "vus" && form.model === "open" ? `${capitalized(ops)} per second` : label,
      ),
      matrixLimits: all.filter(isLimit).map((e) => e.message),
    };
  }, [schema, form, ops]);
  const rounds = roundsOf(form);
  const durationSec = wholeNumber(form.durationSec, 1);
  const warmupSec = form.warmupSec.trim() === "" ? 0 : wholeNumber(form.warmupSec, 0);
  const estimate =
    rounds === null || durationSec === null || warmupSec === null
      ? null
      : estimateMatrix({
          servers: form.servers.length,
          scenarios: 1,
          levels,
          rounds: rounds.max,
          durationSec,
          warmupSec,
          cooldownSec: DEFAULT_COOLDOWN_SEC,
        });
  const servers = form.servers.length;
  return { invalidFields, matrixLimits, servers, levels, rounds, estimate, warmupSec, durationSec };
}

function roundsOf(form: FormState): { min: number; max: number } | null {
  const min = wholeNumber(form.rounds, 1);
  if (min === null || !form.adaptive) return min === null ? null : { min, max: min };
  const max = wholeNumber(form.maxRounds, 2);
  return max === null ? null : { min, max: Math.max(min, max) };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The matrix the form would queue (cells and time), or the fields to fix first. */
export function MatrixPreview({
  preview,
  attempted,
}: {
  preview: Preview;
  /** A submit was tried: the fields in error are highlighted. */
  attempted: boolean;
}) {
  const { invalidFields, matrixLimits, servers, levels, rounds, estimate, warmupSec, durationSec } = preview;
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
        {rounds === null ? "?" : roundsLabel(rounds)}
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
