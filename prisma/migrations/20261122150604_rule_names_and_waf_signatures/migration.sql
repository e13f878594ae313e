-- AlterTable
ALTER TABLE "domains" DROP COLUMN "waf_managed_signatures";

-- AlterTable
ALTER TABLE "waf_rules" ADD COLUMN     "signatures" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateIndex
CREATE UNIQUE INDEX "redirect_rules_domain_id_name_key" ON "redirect_rules"("domain_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "rate_limit_rules_domain_id_name_key" ON "rate_limit_rules"("domain_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "waf_rules_domain_id_name_key" ON "waf_rules"("domain_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "header_rules_domain_id_name_key" ON "header_rules"("domain_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "ip_rules_domain_id_name_key" ON "ip_rules"("domain_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "cache_rules_domain_id_name_key" ON "cache_rules"("domain_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "page_rules_domain_id_name_key" ON "page_rules"("domain_id", "name");

