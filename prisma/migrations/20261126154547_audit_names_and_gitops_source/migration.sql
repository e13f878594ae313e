-- AlterTable
ALTER TABLE "audit_events" ADD COLUMN     "domain_name" TEXT,
ADD COLUMN     "gitops_commit" TEXT,
ADD COLUMN     "gitops_repo" TEXT,
ADD COLUMN     "target_name" TEXT;

