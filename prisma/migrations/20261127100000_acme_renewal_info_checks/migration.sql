-- AlterTable
ALTER TABLE "ssl_certificates" ADD COLUMN     "renewal_info_check_after" TIMESTAMPTZ(3);
