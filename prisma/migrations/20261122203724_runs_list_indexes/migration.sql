-- DropIndex
DROP INDEX "runs_status_idx";

-- CreateIndex
CREATE INDEX "runs_created_at_id_idx" ON "runs"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "runs_status_created_at_idx" ON "runs"("status", "created_at" DESC);

-- CreateIndex
CREATE INDEX "runs_git_repo_git_branch_created_at_idx" ON "runs"("git_repo", "git_branch", "created_at" DESC);
