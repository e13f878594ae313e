-- AlterTable
ALTER TABLE "edge_nodes" ADD COLUMN     "last_failure" TEXT,
ADD COLUMN     "last_failure_at" TIMESTAMPTZ(3);

