-- CreateTable
CREATE TABLE "login_throttles" (
    "key" TEXT NOT NULL,
    "failures" INTEGER NOT NULL,
    "blocked_until" TIMESTAMPTZ(3),
    "last_failure_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "login_throttles_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "admin_login_clients" (
    "user_id" TEXT NOT NULL,
    "client" TEXT NOT NULL,
    "last_login_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "admin_login_clients_pkey" PRIMARY KEY ("user_id","client")
);

-- CreateIndex
CREATE INDEX "login_throttles_last_failure_at_idx" ON "login_throttles"("last_failure_at");

-- AddForeignKey
ALTER TABLE "admin_login_clients" ADD CONSTRAINT "admin_login_clients_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "admin_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
