-- UNLOGGED is not expressible in schema.prisma; it lives only here.
-- Nonces are short-lived replay memory written on every signed edge request
-- (every config pull). Unlogged, a nonce costs no WAL and no fsync, so a pull
-- does not wait for a disk flush. The price: a crash, or a failover to a standby,
-- empties unlogged tables. edge_nonce_memory is emptied with edge_nonces and
-- says since when the memory is complete; when its row is missing, the core
-- restarts it and refuses requests signed before that (docs/edge-protocol.md).
ALTER TABLE "edge_nonces" SET UNLOGGED;

-- CreateTable
CREATE UNLOGGED TABLE "edge_nonce_memory" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "complete_since" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "edge_nonce_memory_pkey" PRIMARY KEY ("id")
);

-- Every nonce stored so far is kept by SET UNLOGGED: the memory is complete from the start.
INSERT INTO "edge_nonce_memory" ("id", "complete_since") VALUES (1, 'epoch');
