-- AlterTable
ALTER TABLE "domains" ADD COLUMN     "nameservers_check_error" TEXT;

