-- AlterTable
-- Tokens made before roles could manage tokens: they stay admins. New tokens are members unless
-- made as admins.
ALTER TABLE "api_tokens" ADD COLUMN     "role" "membership_role" NOT NULL DEFAULT 'admin';
ALTER TABLE "api_tokens" ALTER COLUMN "role" SET DEFAULT 'member';
