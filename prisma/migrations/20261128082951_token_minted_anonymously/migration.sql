-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN     "minted_anonymously" BOOLEAN NOT NULL DEFAULT false;
