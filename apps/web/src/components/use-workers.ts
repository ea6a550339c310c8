"use client";

import { ZWorkerList } from "@perflab/contracts";
import { useEffect, useState } from "react";
import type { WorkersState } from "@/lib/workers";

/** The running workers (GET /api/v1/workers), read now and every `intervalMs` while mounted. */
export function useWorkers(intervalMs = 10_000): WorkersState {
  const [state, setState] = useState<WorkersState>(null);
  useEffect(() => {
    let live = true;
    const read = async () => {
      try {
        const response = await fetch("/api/v1/workers", { cache: "no-store" });
        const body: unknown = await response.json();
        if (!live) return;
        if (!response.ok) {
          const detail = (body as { detail?: unknown }).detail;
          setState({ error: typeof detail === "string" ? detail : `HTTP ${response.status}` });
          return;
        }
        setState(ZWorkerList.parse(body));
      } catch (error) {
        if (live) setState({ error: (error as Error).message });
      }
    };
    void read();
    const timer = setInterval(() => void read(), intervalMs);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [intervalMs]);
  return state;
}
