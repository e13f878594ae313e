-- AlterTable
ALTER TABLE "ssl_certificates" ADD COLUMN     "renew_after" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "ssl_jobs" ADD COLUMN     "challenge" TEXT;

-- AlterTable
ALTER TABLE "acme_challenges" ADD COLUMN     "job_id" TEXT,
ADD COLUMN     "type" TEXT NOT NULL DEFAULT 'http-01';

-- CreateTable
CREATE TABLE "acme_accounts" (
    "directory_url" TEXT NOT NULL,
    "email" TEXT,
    "account_url" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "key_encrypted" TEXT NOT NULL,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "acme_accounts_pkey" PRIMARY KEY ("directory_url")
);

-- CreateIndex
CREATE INDEX "ssl_certificates_status_renew_after_idx" ON "ssl_certificates"("status", "renew_after");

-- CreateIndex
CREATE INDEX "acme_challenges_domain_id_type_idx" ON "acme_challenges"("domain_id", "type");

