-- AlterTable
ALTER TABLE "edge_nodes" ADD COLUMN     "https_port" INTEGER;
