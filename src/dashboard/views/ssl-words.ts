// The SSL API's states in words (docs/ssl.md): certificates, jobs, the ACME account.

const DAY = 86400;

/** How long a certificate has left, from `now` (unix seconds): "expires in 29 days", "expires today", "expired 2 days ago". */
export function expiryInWords(notAfter: number | null, now = Date.now() / 1000): string {
  if (notAfter === null) return '';
  const left = notAfter - now;
  if (left < 0) {
    const ago = Math.floor(-left / DAY);
    return ago === 0 ? 'expired today' : `expired ${ago} day${ago === 1 ? '' : 's'} ago`;
  }
  const days = Math.floor(left / DAY);
  return days === 0 ? 'expires today' : `expires in ${days} day${days === 1 ? '' : 's'}`;
}

export const SOURCE_WORDS: Record<string, string> = { acme: 'ACME (issued by the CA)', manual: 'Manual (uploaded)' };

export const CERTIFICATE_STATUS_WORDS: Record<string, string> = { active: 'In force', replaced: 'Replaced (history)' };

export const JOB_STATUS_WORDS: Record<string, string> = {
  queued: 'Waiting to run',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  cancelled: 'Cancelled (the domain was not active)',
};

export const JOB_KIND_WORDS: Record<string, string> = { issue: 'Issuance', renew: 'Renewal', managed: 'Issuance on activation (apex and wildcard)' };

export const JOB_TONE: Record<string, 'good' | 'warn' | 'bad' | 'neutral'> = { queued: 'neutral', running: 'warn', succeeded: 'good', failed: 'bad', cancelled: 'neutral' };

/** The ACME account of CDN_SSL_ACME_DIRECTORY_URL in words. */
export function accountInWords(account: { status: string; directory_url: string | null; detail?: string; email?: string | null; last_error?: string | null }): string {
  if (account.status === 'not_configured') return `ACME is not configured on this core (${account.detail}): requested jobs wait in the queue until it is.`;
  if (account.status === 'not_registered') return `ACME directory ${account.directory_url}: no account yet; it is registered with the first order.`;
  const email = account.email ? `, contact ${account.email}` : '';
  const error = account.last_error ? ` Last error: ${account.last_error}` : '';
  return `ACME directory ${account.directory_url}: account ${account.status}${email}.${error}`;
}
