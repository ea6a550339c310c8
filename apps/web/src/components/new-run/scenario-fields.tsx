import {
  type FormFieldSpec,
  type FormValues,
  formFieldHint,
  formFieldId,
  isFieldShown,
} from "@perflab/contracts";
import type { FieldError } from "@/lib/form-errors";
import { FormField, inputClass } from "../form-field";
import { StoredScriptControl } from "./stored-script-field";

type FieldProps = {
  field: FormFieldSpec;
  value: string;
  errors: FieldError[];
  onChange: (value: string) => void;
  /** Tools every selected server offers; null when none lists tools (any name goes). */
  tools: string[] | null;
  /** How many servers are selected. */
  serverCount: number;
};

/**
 * A scenario's own fields, as its module declares them (kind, label, options, hint, when shown):
 * the form renders every scenario through this, and knows none by name.
 */
export function ScenarioFields({
  fields,
  values,
  errorsOf,
  onChange,
  tools,
  serverCount,
}: {
  fields: readonly FormFieldSpec[];
  values: FormValues;
  errorsOf: (name: string) => FieldError[];
  onChange: (name: string, value: string) => void;
} & Pick<FieldProps, "tools" | "serverCount">) {
  return fields
    .filter((field) => isFieldShown(field, values))
    .map((field) => (
      <ScenarioField
        key={field.name}
        field={field}
        value={values[field.name] ?? ""}
        errors={errorsOf(field.name)}
        onChange={(value) => onChange(field.name, value)}
        tools={tools}
        serverCount={serverCount}
      />
    ));
}

function ScenarioField(props: FieldProps) {
  const { field, value, errors } = props;
  const id = formFieldId(field);
  const hint = field.kind === "server-tool" ? toolHint(props) : formFieldHint(field, value);
  // Called, not rendered as a component: FormField describes the element it is handed.
  const element = control(props, id);
  return (
    <FormField id={id} label={field.label} errors={errors} hint={hint}>
      {element}
    </FormField>
  );
}

/** Why the tool list is what it is, when several servers narrow it. */
function toolHint({ field, tools, serverCount }: FieldProps): string | undefined {
  if (tools && tools.length === 0) return "The selected servers share no tool";
  return serverCount > 1 ? "Tools every selected server offers" : field.hint;
}

/** The native control of a field's kind. */
function control({ field, value, errors, onChange, tools }: FieldProps, id: string) {
  const common = {
    id,
    value,
    "aria-invalid": errors.length > 0,
    onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) =>
      onChange(e.target.value),
  };
  switch (field.kind) {
    case "select":
      return (
        <select className={inputClass} {...common}>
          {field.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
    case "whole-number":
      return <input inputMode="numeric" placeholder={field.placeholder} className={inputClass} {...common} />;
    case "json":
      return (
        <textarea rows={field.rows} spellCheck={false} className={`${inputClass} font-mono`} {...common} />
      );
    case "stored-script":
      return <StoredScriptControl common={common} placeholder={field.placeholder} onPick={onChange} />;
    case "server-tool":
      return tools && tools.length > 0 ? (
        <select className={inputClass} {...common}>
          {tools.map((tool) => (
            <option key={tool} value={tool}>
              {tool}
            </option>
          ))}
        </select>
      ) : (
        <input className={inputClass} {...common} />
      );
  }
}
