-- AlterTable
-- Reports made before this column stay null: sharing their run again compares their snapshot
-- whole, once, and keeps its hash then.
ALTER TABLE "reports" ADD COLUMN     "snapshot_sha256" CHAR(64);

-- CreateIndex
CREATE INDEX "reports_snapshot_sha256_idx" ON "reports"("snapshot_sha256");
