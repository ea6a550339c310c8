import type { DriverId } from "@perflab/contracts";
import type { FieldError } from "@/lib/form-errors";
import { FormField, inputClass } from "../form-field";
import type { FormState } from "./form-state";
import { NumberField } from "./number-field";

type Key = "rounds" | "adaptive" | "maxRounds" | "maxMinutes" | "driver" | "cpus" | "memoryMb" | "cpuset";

/** Rounds (fixed, or adaptive up to a budget), the driver and a container's limits. */
export function RunFields({
  form,
  update,
  err,
  noEngine,
}: {
  form: FormState;
  update: (patch: Partial<FormState>) => void;
  err: (key: Key) => FieldError[];
  /** No worker reaches a docker engine while docker is chosen (said below the form). */
  noEngine: boolean;
}) {
  const docker = form.driver === "docker";
  const byDocker = "Applied by the docker driver";
  return (
    <div className="grid gap-6 sm:grid-cols-2 md:grid-cols-4">
      <NumberField
        id="rounds"
        label={form.adaptive ? "Rounds (minimum)" : "Rounds"}
        value={form.rounds}
        errors={err("rounds")}
        onChange={(rounds) => update({ rounds })}
        hint={form.adaptive ? "Before the first look; at least 2" : "Interleaved across servers"}
      />
      <AdaptiveFields form={form} update={update} err={err} />
      <FormField
        id="driver"
        label="Driver"
        errors={err("driver")}
        hint={
          noEngine ? (
            <span className="text-amber-700 dark:text-amber-300">No worker reaches an engine (below)</span>
          ) : docker ? (
            "A container per cell, host network, limits applied"
          ) : (
            "A process per server"
          )
        }
      >
        <select
          id="driver"
          className={inputClass}
          value={form.driver}
          onChange={(e) => update({ driver: e.target.value as DriverId })}
          aria-invalid={err("driver").length > 0}
        >
          <option value="local">local process</option>
          <option value="docker">docker</option>
        </select>
      </FormField>
      <NumberField
        id="cpus"
        label="CPU limit (vCPU)"
        value={form.cpus}
        errors={err("cpus")}
        onChange={(cpus) => update({ cpus })}
        hint={docker ? "Default 2, capped to the host" : byDocker}
      />
      <NumberField
        id="memoryMb"
        label="Memory limit (MB)"
        value={form.memoryMb}
        errors={err("memoryMb")}
        onChange={(memoryMb) => update({ memoryMb })}
        hint={docker ? "Default 2048, capped to the host" : byDocker}
      />
      <FormField
        id="cpuset"
        label="CPU set"
        errors={err("cpuset")}
        hint={docker ? "Pin to CPUs, e.g. 0-1 or 0,2; empty: any" : byDocker}
      >
        <input
          id="cpuset"
          type="text"
          inputMode="numeric"
          placeholder="any"
          className={`${inputClass} tabular-nums`}
          value={form.cpuset}
          onChange={(e) => update({ cpuset: e.target.value })}
          aria-invalid={err("cpuset").length > 0}
        />
      </FormField>
    </div>
  );
}

/**
 * Adaptive rounds: after the minimum, the worker adds a round at a time until every neighbouring
 * pair of servers is apart or surely alike, or the most rounds or minutes are reached.
 */
function AdaptiveFields({
  form,
  update,
  err,
}: {
  form: FormState;
  update: (patch: Partial<FormState>) => void;
  err: (key: Key) => FieldError[];
}) {
  return (
    <>
      <FormField
        id="adaptive"
        label="Adaptive rounds"
        errors={err("adaptive")}
        hint="Add rounds until the servers' order is clear"
      >
        <label className="flex items-center gap-2 py-2 text-sm">
          <input
            id="adaptive"
            type="checkbox"
            checked={form.adaptive}
            onChange={(e) =>
              update({
                adaptive: e.target.checked,
                // The rule's first look needs two rounds of every server.
                ...(e.target.checked && Number(form.rounds) < 2 ? { rounds: "2" } : {}),
              })
            }
          />
          Until decided
        </label>
      </FormField>
      {form.adaptive && (
        <>
          <NumberField
            id="maxRounds"
            label="Max rounds"
            value={form.maxRounds}
            errors={err("maxRounds")}
            onChange={(maxRounds) => update({ maxRounds })}
            hint="2 to 20, at least the minimum"
          />
          <NumberField
            id="maxMinutes"
            label="Max minutes (optional)"
            value={form.maxMinutes}
            errors={err("maxMinutes")}
            onChange={(maxMinutes) => update({ maxMinutes })}
            hint="No round begins that would end past it"
          />
        </>
      )}
    </>
  );
}
