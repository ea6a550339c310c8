import type { Prisma } from "@perflab/db";

/**
 * The runs a reader may see: those of its workspace when it has one to keep to (a private lab's
 * reads, see `readScope`), else every run.
 */
export const runScope = (workspaceId: string | null | undefined): Prisma.RunWhereInput =>
  workspaceId ? { workspaceId } : {};
