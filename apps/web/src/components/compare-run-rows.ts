import type { RunDto } from "@/lib/dto";
import { unusableLatency } from "@/lib/unusable-latency";

/** One row of the /compare page's list of runs, as shown. */
export type CompareRunRow = {
  id: string;
  name: string;
  tag: string;
  status: RunDto["status"];
  /** "3f2a9c1d0e4b (main)", or null without a commit. */
  commit: string | null;
  createdAt: string;
  /** Why the comparison has no latency for this run (GET /api/v1/comparison's `unusable`), or null. */
  unusable: string | null;
};

/** The compared runs as the page lists them, each tagged as its bars are. */
export function compareRunRows(
  runs: {
    run: Pick<RunDto, "id" | "name" | "status" | "createdAt" | "spec">;
    commit: string | null;
    branch: string | null;
  }[],
  tags: Map<string, string>,
): CompareRunRow[] {
  return runs.map(({ run, commit, branch }) => ({
    id: run.id,
    name: run.name,
    tag: tags.get(run.id) ?? "",
    status: run.status,
    commit: commit ? `${commit.slice(0, 12)}${branch ? ` (${branch})` : ""}` : null,
    createdAt: run.createdAt,
    unusable: unusableLatency(run.spec),
  }));
}
