import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { checkChallengeToken, clearanceSatisfies, issueChallengeToken, issueClearance, PROOF_OF_WORK_BITS, solvesChallenge } from '../../../src/edge/security/challenge-token.js';

const SECRET = 'test-clearance-secret';
const ME = { domainId: 'dom-1', clientIp: '192.0.2.10' };
const NOW = 1_700_000_000_000;

function solve(token: string, bits: number): string {
  for (let nonce = 0; ; nonce++) {
    const digest = createHash('sha256').update(token + nonce).digest();
    const value = digest.readUInt32BE(0);
    if (bits === 0 || value >>> (32 - bits) === 0) return String(nonce);
  }
}

describe('challenge tokens and clearances', () => {
  it('accepts a fresh token for the same domain and address, with its level', () => {
    const token = issueChallengeToken(SECRET, ME, 3, NOW);
    expect(checkChallengeToken(SECRET, ME, token, NOW + 1000)).to.deep.equal({ level: 3 });
  });

  const refusals: [string, (token: string) => ReturnType<typeof checkChallengeToken>, string][] = [
    ['a token for another domain', (token) => checkChallengeToken(SECRET, { ...ME, domainId: 'dom-2' }, token, NOW), 'bad signature'],
    ['a token for another address', (token) => checkChallengeToken(SECRET, { ...ME, clientIp: '192.0.2.11' }, token, NOW), 'bad signature'],
    ['a token signed with another secret', (token) => checkChallengeToken('other-secret', ME, token, NOW), 'bad signature'],
    ['a token with a raised level', (token) => checkChallengeToken(SECRET, ME, token.replace(/^v1\.3\./, 'v1.6.'), NOW), 'bad signature'],
    ['a token with an extended expiry', (token) => checkChallengeToken(SECRET, ME, token.replace(/^(v1\.3\.)(\d+)/, (_, head, expires) => `${head}${Number(expires) + 600}`), NOW), 'bad signature'],
    ['an expired token', (token) => checkChallengeToken(SECRET, ME, token, NOW + 301_000), 'expired'],
    ['garbage', () => checkChallengeToken(SECRET, ME, 'v1.3.x.y.z', NOW), 'malformed'],
  ];
  for (const [name, check, problem] of refusals) {
    it(`refuses ${name}`, () => {
      expect(check(issueChallengeToken(SECRET, ME, 3, NOW))).to.deep.equal({ problem });
    });
  }

  it('checks proof of work at the level bits', () => {
    const token = issueChallengeToken(SECRET, ME, 3, NOW);
    const nonce = solve(token, PROOF_OF_WORK_BITS[3]);
    expect(solvesChallenge(token, 3, nonce)).to.equal(true);
    expect(solvesChallenge(token, 3, String(Number(nonce) + 1)) && solvesChallenge(token, 3, String(Number(nonce) + 2))).to.equal(false);
    expect(solvesChallenge(token, 3, 'abc')).to.equal(false);
    expect(solvesChallenge(token, 3, '1'.repeat(40))).to.equal(false);
  });

  it('takes the token hash as the level-1 browser check answer', () => {
    const token = issueChallengeToken(SECRET, ME, 1, NOW);
    expect(solvesChallenge(token, 1, createHash('sha256').update(token).digest('hex'))).to.equal(true);
    expect(solvesChallenge(token, 1, '0'.repeat(64))).to.equal(false);
    expect(solvesChallenge(token, 1, '')).to.equal(false);
  });

  it('grows the work by two bits a level', () => {
    expect([1, 2, 3, 4, 5, 6].map((level) => PROOF_OF_WORK_BITS[level])).to.deep.equal([0, 10, 12, 14, 16, 18]);
  });

  it('honours a clearance for its domain and address at its level or below until it expires', () => {
    const clearance = issueClearance(SECRET, ME, 4, 1800, NOW);
    expect(clearanceSatisfies(SECRET, ME, clearance, 4, NOW)).to.equal(true);
    expect(clearanceSatisfies(SECRET, ME, clearance, 1, NOW + 1_799_000)).to.equal(true);
    expect(clearanceSatisfies(SECRET, ME, clearance, 5, NOW)).to.equal(false);
    expect(clearanceSatisfies(SECRET, ME, clearance, 1, NOW + 1_800_000)).to.equal(false);
    expect(clearanceSatisfies(SECRET, { ...ME, domainId: 'dom-2' }, clearance, 1, NOW)).to.equal(false);
    expect(clearanceSatisfies(SECRET, { ...ME, clientIp: '2001:db8::1' }, clearance, 1, NOW)).to.equal(false);
    expect(clearanceSatisfies('rotated', ME, clearance, 1, NOW)).to.equal(false);
  });

  it('refuses a tampered or foreign clearance', () => {
    const clearance = issueClearance(SECRET, ME, 2, 1800, NOW);
    const [, expires, signature] = clearance.split('.');
    expect(clearanceSatisfies(SECRET, ME, `6.${expires}.${signature}`, 6, NOW)).to.equal(false);
    expect(clearanceSatisfies(SECRET, ME, `2.${Number(expires) + 9999}.${signature}`, 2, NOW)).to.equal(false);
    const flipped = signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A');
    expect(clearanceSatisfies(SECRET, ME, `2.${expires}.${flipped}`, 2, NOW)).to.equal(false);
    const token = issueChallengeToken(SECRET, ME, 2, NOW);
    const [, level, tokenExpires, , tokenSignature] = token.split('.');
    expect(clearanceSatisfies(SECRET, ME, `${level}.${tokenExpires}.${tokenSignature}`, 2, NOW)).to.equal(false);
    for (const junk of ['', '2', '2..', 'x.y.z', `2.${expires}.${signature}x`]) expect(clearanceSatisfies(SECRET, ME, junk, 1, NOW)).to.equal(false);
  });
});
