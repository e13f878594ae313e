-- CreateTable
CREATE TABLE "read_versions" (
    "name" TEXT NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "read_versions_pkey" PRIMARY KEY ("name")
);


-- Triggers are not expressible in schema.prisma; they live only here.
-- Statement-level, so a bulk write bumps the counter once.
INSERT INTO "read_versions" ("name") VALUES ('domains');

CREATE FUNCTION "bump_domains_read_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "read_versions" SET "version" = "version" + 1 WHERE "name" = 'domains';
  RETURN NULL;
END
$$;

CREATE TRIGGER "domains_read_version"
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "domains"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_domains_read_version"();

CREATE TRIGGER "domain_nameservers_read_version"
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "domain_nameservers"
  FOR EACH STATEMENT EXECUTE FUNCTION "bump_domains_read_version"();
