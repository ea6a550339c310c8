import type { Db } from "@perflab/db";

export const DEFAULT_WORKSPACE_SLUG = "default";

/** Until sign-in exists every run belongs to one workspace, created on first use. */
export async function ensureDefaultWorkspace({ db }: { db: Db }): Promise<{ id: string }> {
  return db.workspace.upsert({
    where: { slug: DEFAULT_WORKSPACE_SLUG },
    create: { slug: DEFAULT_WORKSPACE_SLUG, name: "Default" },
    update: {},
    select: { id: true },
  });
}
