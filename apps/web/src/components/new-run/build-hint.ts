import type { ServerBuildState } from "@perflab/catalog";

/** "~40 s", "~2 min": a build's duration is only a rough guide to the next one. */
function roughly(seconds: number): string {
  return seconds < 90 ? `~${Math.max(1, Math.round(seconds))} s` : `~${Math.round(seconds / 60)} min`;
}

/** The native build on this machine: its state and how long the last one took here. */
export function buildHint({ state, lastSeconds }: ServerBuildState): string {
  const took = lastSeconds === null ? null : roughly(lastSeconds);
  switch (state) {
    case "built":
      return took ? `built · a build takes ${took}` : "built";
    case "building":
      return took ? `building now · takes ${took}` : "building now (its first build here)";
    case "failed":
      return "build failed (see above)";
    case "not built":
      return took ? `not built · a build takes ${took}` : "not built yet";
  }
}
