-- AlterEnum
-- An upload's run waits in this state while a worker decodes its stored body.
ALTER TYPE "run_status" ADD VALUE 'ingesting' BEFORE 'running';

-- CreateTable
CREATE TABLE "uploads" (
    "run_id" TEXT NOT NULL,
    "query" JSONB NOT NULL,
    "bytes" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "uploads_pkey" PRIMARY KEY ("run_id")
);

-- CreateTable
CREATE TABLE "upload_chunks" (
    "run_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "upload_chunks_pkey" PRIMARY KEY ("run_id","seq")
);

-- AddForeignKey
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "upload_chunks" ADD CONSTRAINT "upload_chunks_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "uploads"("run_id") ON DELETE CASCADE ON UPDATE CASCADE;
