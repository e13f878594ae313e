-- Identical DNS records and origins with the same (scheme, host, port) are refused by
-- the API, but concurrent creates could store them twice before the writes were
-- serialized. The unique indexes below make storage hold the rule; the oldest row of
-- each duplicate group is kept, younger copies (with their geo routes) are removed
-- first so the indexes can be built.

-- content can be longer than an index entry allows: records are keyed by its SHA-256.
ALTER TABLE "dns_records" ADD COLUMN "content_digest" TEXT;
UPDATE "dns_records" SET "content_digest" = encode(sha256(convert_to("content", 'UTF8')), 'hex');
ALTER TABLE "dns_records" ALTER COLUMN "content_digest" SET NOT NULL;

DELETE FROM "dns_records" AS younger
USING "dns_records" AS older
WHERE younger."domain_id" = older."domain_id"
  AND younger."name" = older."name"
  AND younger."type" = older."type"
  AND younger."content_digest" = older."content_digest"
  AND (younger."created_at", younger."id") > (older."created_at", older."id");

DELETE FROM "origins" AS younger
USING "origins" AS older
WHERE younger."domain_id" = older."domain_id"
  AND younger."scheme" = older."scheme"
  AND younger."host" = older."host"
  AND younger."port" = older."port"
  AND (younger."created_at", younger."id") > (older."created_at", older."id");

-- The unique indexes lead with the columns of the plain indexes they replace.
DROP INDEX "dns_records_domain_id_name_type_idx";
DROP INDEX "origins_domain_id_idx";

CREATE UNIQUE INDEX "dns_records_domain_id_name_type_content_digest_key" ON "dns_records"("domain_id", "name", "type", "content_digest");
CREATE UNIQUE INDEX "origins_domain_id_scheme_host_port_key" ON "origins"("domain_id", "scheme", "host", "port");
