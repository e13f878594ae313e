-- CreateTable
CREATE TABLE "installation_secrets" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "installation_secrets_pkey" PRIMARY KEY ("name")
);
