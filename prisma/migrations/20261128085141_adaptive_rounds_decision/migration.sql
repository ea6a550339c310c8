-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "rounds_decision" JSONB;
