-- GitOps repositories are named without the credentials a URL may carry (docs/gitops.md,
-- Repository credentials). Runs and acceptances recorded under https://user:token@host/… move to
-- https://host/…, so their history stays under the name the controller uses now; an SSH URL keeps
-- its login and loses a password; errors (git quotes URLs) and the repository of audited
-- acceptances lose them too. The same rule as withoutUrlCredentials (src/shared/url-credentials.ts).
CREATE FUNCTION pg_temp.without_url_credentials(input text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(
    regexp_replace(input, '(^|[^A-Za-z0-9+.-])((?![A-Za-z0-9+.-]*ssh)[A-Za-z][A-Za-z0-9+.-]*://)[^[:space:]/?#]*@', '\1\2', 'gi'),
    '(^|[^A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://)([^[:space:]/?#:@]*):[^[:space:]/?#]*@', '\1\2\3@', 'gi')
$$;

UPDATE "gitops_runs"
SET "repo" = pg_temp.without_url_credentials("repo"), "error" = pg_temp.without_url_credentials("error")
WHERE "repo" <> pg_temp.without_url_credentials("repo") OR "error" <> pg_temp.without_url_credentials("error");

-- One acceptance per repository and commit: of those that now share a name, the newest stays.
DELETE FROM "gitops_acceptances" AS "older"
USING "gitops_acceptances" AS "newer"
WHERE pg_temp.without_url_credentials("older"."repo") = pg_temp.without_url_credentials("newer"."repo")
  AND "older"."commit_sha" = "newer"."commit_sha" AND "older"."id" < "newer"."id";

UPDATE "gitops_acceptances" SET "repo" = pg_temp.without_url_credentials("repo")
WHERE "repo" <> pg_temp.without_url_credentials("repo");

UPDATE "audit_events"
SET "detail" = jsonb_set("detail", '{body,repo}', to_jsonb(pg_temp.without_url_credentials("detail"->'body'->>'repo')))
WHERE "action" = 'gitops.accept_refused_plan' AND jsonb_typeof("detail"->'body'->'repo') = 'string'
  AND "detail"->'body'->>'repo' <> pg_temp.without_url_credentials("detail"->'body'->>'repo');

DROP FUNCTION pg_temp.without_url_credentials(text);
