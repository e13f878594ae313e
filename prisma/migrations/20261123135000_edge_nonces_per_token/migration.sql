-- Nonces are remembered per edge token instead of per edge id, so the edges that
-- share a token share its nonces (docs/edge-protocol.md, "Replay memory").
-- The stored nonces are dropped rather than converted: they belong to requests
-- signed without the edge id in the canonical string, whose signatures no longer
-- verify, so none of them can be replayed and the memory stays complete.
TRUNCATE "edge_nonces";

-- AlterTable
ALTER TABLE "edge_nonces" DROP CONSTRAINT "edge_nonces_pkey",
DROP COLUMN "edge_id",
ADD COLUMN     "token_id" TEXT NOT NULL,
ADD CONSTRAINT "edge_nonces_pkey" PRIMARY KEY ("token_id", "nonce");
