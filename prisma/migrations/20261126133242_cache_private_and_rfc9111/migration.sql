-- AlterTable
ALTER TABLE "cache_rules" ADD COLUMN     "cache_private" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "cache_settings" ADD COLUMN     "strict_rfc9111" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "targeted_cache_control_header" TEXT;

