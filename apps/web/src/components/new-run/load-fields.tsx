import { scenarioOrDefault } from "@perflab/contracts";
import { type FieldError, mergeByField } from "@/lib/form-errors";
import { capitalized, operationWord, rateWord } from "@/lib/labels";
import { splitVuList } from "@/lib/matrix-preview";
import { FormField, inputClass } from "../form-field";
import type { FormState } from "./form-state";
import { NumberField } from "./number-field";

/**
 * The load levels' errors split: every open-model level has the one pool size typed under it, so
 * its errors show there, once; a level's own error names the value it is about ("0: must be at least 1").
 */
function levelErrors(errors: FieldError[], typed: string) {
  const tokens = splitVuList(typed);
  const pool = mergeByField(
    errors.filter((e) => e.field.endsWith(".maxVus")).map((e) => ({ field: "maxVus", message: e.message })),
  );
  const levels = errors
    .filter((e) => !e.field.endsWith(".maxVus"))
    .map((e) => {
      const token = tokens[Number(/^loadLevels\.(\d+)/.exec(e.field)?.[1] ?? Number.NaN)];
      return token === undefined ? e : { ...e, message: `${token}: ${e.message}` };
    });
  return { pool, levels };
}

/**
 * The load model, its levels (VUs or a rate), the open model's VU pool, the client's timeout per
 * request, duration and warm-up.
 */
export function LoadFields({
  form,
  update,
  err,
}: {
  form: FormState;
  update: (patch: Partial<FormState>) => void;
  err: (key: "vus" | "timeoutMs" | "durationSec" | "warmupSec") => FieldError[];
}) {
  const started = rateWord(form.scenario);
  const held = scenarioOrDefault(form.scenario).operations.vuHolds;
  const open = form.model === "open";
  const { pool, levels } = levelErrors(err("vus"), form.vus);
  return (
    <>
      <div className="grid gap-6 sm:grid-cols-4">
        <FormField
          id="model"
          label="Load model"
          errors={[]}
          // Two columns: one (160 px) cuts "Open: requests per second"; below sm the field is full width.
          className="sm:col-span-2"
          hint={
            open
              ? `${capitalized(started)} start at a fixed rate whatever the latency (soaks, latency targets)`
              : `VUs ${operationWord(form.scenario, 1)} back to back (throughput)`
          }
        >
          <select
            id="model"
            className={inputClass}
            value={form.model}
            onChange={(e) => update({ model: e.target.value as FormState["model"] })}
          >
            <option value="closed">Closed: virtual users</option>
            <option value="open">{`Open: ${started} per second`}</option>
          </select>
        </FormField>
        {open && (
          <FormField
            id="maxVus"
            label="Max VUs"
            errors={pool}
            hint={`VUs${held ? ` (${held})` : ""} k6 may use per level; empty: one per 5 ${started}/s`}
          >
            <input
              id="maxVus"
              type="number"
              inputMode="numeric"
              className={`${inputClass} tabular-nums`}
              value={form.maxVus}
              onChange={(e) => update({ maxVus: e.target.value })}
              aria-invalid={pool.length > 0}
            />
          </FormField>
        )}
        <NumberField
          id="timeoutMs"
          label="Client timeout (ms)"
          value={form.timeoutMs}
          errors={err("timeoutMs")}
          onChange={(timeoutMs) => update({ timeoutMs })}
          hint="Blank: k6's 60 s. A request past it counts as a timeout, apart from errors"
        />
      </div>

      <div className="grid gap-6 sm:grid-cols-4">
        <FormField
          id="vus"
          label={open ? `${capitalized(started)} per second` : "Virtual users"}
          errors={levels}
          className="sm:col-span-2"
          hint={
            open
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
            aria-invalid={err("vus").length > 0}
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
    </>
  );
}
