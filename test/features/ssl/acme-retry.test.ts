import { expect } from 'chai';
import { AcmeProblem, ChallengeFailed, MAX_ATTEMPTS, retryAfterSeconds, retryDecision } from '../../../src/features/ssl/acme/acme-problem.js';
import { challengeFor } from '../../../src/features/ssl/acme/acme-challenges.js';

const RATE_LIMITED = 'urn:ietf:params:acme:error:rateLimited';

describe('ACME retry decisions', () => {
  it('waits what a rate limit asks for in Retry-After', () => {
    expect(retryDecision(new AcmeProblem(RATE_LIMITED, 'too many certificates', 3600), 1)).to.deep.equal({ retry: true, delaySeconds: 3600 });
  });

  it('keeps retrying a rate limit even after the attempts a failure gets', () => {
    expect(retryDecision(new AcmeProblem(RATE_LIMITED, 'too many', 120), MAX_ATTEMPTS + 3)).to.deep.equal({ retry: true, delaySeconds: 120 });
  });

  it('backs off 1, 2, 4 minutes for a rate limit without Retry-After', () => {
    expect([1, 2, 3].map((attempts) => retryDecision(new AcmeProblem(RATE_LIMITED, 'slow down'), attempts))).to.deep.equal([60, 120, 240].map((delaySeconds) => ({ retry: true, delaySeconds })));
  });

  it('fails at once when the CA refused a validation', () => {
    expect(retryDecision(new AcmeProblem('urn:ietf:params:acme:error:unauthorized', 'wrong key authorization'), 1)).to.deep.equal({ retry: false });
    expect(retryDecision(new ChallengeFailed('http-01 for www.example.com: connection refused'), 1)).to.deep.equal({ retry: false });
  });

  it('retries other failures with backoff until the last attempt', () => {
    const unreachable = new Error('connect ECONNREFUSED 127.0.0.1:14000');
    expect(retryDecision(unreachable, 1)).to.deep.equal({ retry: true, delaySeconds: 60 });
    expect(retryDecision(new AcmeProblem('urn:ietf:params:acme:error:serverInternal', 'oops'), 4)).to.deep.equal({ retry: true, delaySeconds: 480 });
    expect(retryDecision(unreachable, MAX_ATTEMPTS)).to.deep.equal({ retry: false });
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = new Date('2026-11-26T12:00:00Z');
    expect(retryAfterSeconds('30', now)).to.equal(30);
    expect(retryAfterSeconds('Thu, 26 Nov 2026 12:05:00 GMT', now)).to.equal(300);
    expect(retryAfterSeconds('soon', now)).to.equal(undefined);
    expect(retryAfterSeconds(undefined, now)).to.equal(undefined);
  });
});

describe('ACME challenge rule', () => {
  const proxied = new Set(['www.example.com']);

  it('validates a wildcard by dns-01 whatever was asked', () => {
    expect(challengeFor('*.example.com', 'http-01', proxied)).to.equal('dns-01');
  });

  it('uses the challenge the request names for other names', () => {
    expect(challengeFor('www.example.com', 'dns-01', proxied)).to.equal('dns-01');
  });

  it('uses http-01 for a proxied name and dns-01 for any other by default', () => {
    expect(challengeFor('www.example.com', null, proxied)).to.equal('http-01');
    expect(challengeFor('mail.example.com', null, proxied)).to.equal('dns-01');
  });
});
