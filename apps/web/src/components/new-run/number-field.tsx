import type { FieldError } from "@/lib/form-errors";
import { FormField, inputClass } from "../form-field";

/** A labelled number input with its hint or errors. */
export function NumberField({
  id,
  label,
  value,
  errors,
  onChange,
  hint,
}: {
  id: string;
  label: string;
  value: string;
  errors: FieldError[];
  onChange: (value: string) => void;
  hint?: string;
}) {
  return (
    <FormField id={id} label={label} errors={errors} hint={hint}>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        className={`${inputClass} tabular-nums`}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={errors.length > 0}
      />
    </FormField>
  );
}
