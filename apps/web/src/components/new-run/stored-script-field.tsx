"use client";

import { type TK6ScriptDto, ZK6ScriptList } from "@perflab/contracts";
import { useEffect, useState } from "react";
import { inputClass } from "../form-field";

type Common = {
  id: string;
  value: string;
  "aria-invalid": boolean;
  onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => void;
};

/** The workspace's stored k6 scripts (GET /api/v1/scripts), read once; null until read or unreadable. */
function useStoredScripts(): TK6ScriptDto[] | null {
  const [scripts, setScripts] = useState<TK6ScriptDto[] | null>(null);
  useEffect(() => {
    let live = true;
    fetch("/api/v1/scripts", { cache: "no-store" })
      .then(async (response) => (response.ok ? ZK6ScriptList.parse(await response.json()).scripts : null))
      .then((read) => live && setScripts(read))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return scripts;
}

/**
 * A stored script, picked by name from the workspace's (the first to start with, as a tool field
 * starts with the first tool), or its id typed where none can be listed.
 */
export function StoredScriptControl({
  common,
  placeholder,
  onPick,
}: {
  common: Common;
  placeholder: string;
  onPick: (id: string) => void;
}) {
  const scripts = useStoredScripts();
  const known = scripts?.some((s) => s.id === common.value) ?? false;
  const first = scripts?.[0]?.id;
  useEffect(() => {
    if (first !== undefined && !known) onPick(first);
  }, [first, known, onPick]);
  if (!scripts || scripts.length === 0) {
    return (
      <input placeholder={placeholder} spellCheck={false} className={`${inputClass} font-mono`} {...common} />
    );
  }
  return (
    <select className={inputClass} {...common}>
      {scripts.map((s) => (
        <option key={s.id} value={s.id}>
          {s.name}
        </option>
      ))}
    </select>
  );
}
