import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { TestCore } from '../../support/core.js';

const ADMIN = { CDN_BOOTSTRAP_ADMIN_USER: '1', CDN_BOOTSTRAP_ADMIN_USERNAME: 'admin', CDN_BOOTSTRAP_ADMIN_PASSWORD: 'admin-password' };

describe('authentication and admin sessions', () => {
  describe('with CDN_API_TOKEN set', () => {
    let core: TestCore;
    before(async () => {
      core = await TestCore.start({ ...ADMIN, CDN_API_TOKEN: 'the-api-token', CDN_ADMIN_SESSION_TTL_SECONDS: '600' });
    });
    after(async () => {
      await core.stop();
    });

    const login = async (username = 'admin', password = 'admin-password') => (await core.post('/api/v1/admin/login', { username, password })).data;

    it('rejects a request without a bearer with 401', async () => {
      const error = await core.get('/api/v1/domains', 401);
      expect(error.error).to.equal('authentication required');
    });

    it('rejects a wrong bearer and a malformed Authorization header with 401', async () => {
      await core.get('/api/v1/domains', 401, { token: 'not-the-token' });
      await core.get('/api/v1/domains', 401, { headers: { authorization: 'Basic YWRtaW46eA==' } });
    });

    it('accepts the API token', async () => {
      expect((await core.get('/api/v1/domains', 200, { token: 'the-api-token' })).data).to.be.an('array');
    });

    it('keeps health endpoints and login open', async () => {
      await core.get('/health');
      await core.get('/cdn-health');
      await core.get('/ready');
      await login();
    });

    it('logs in with the bootstrap admin and accepts the session token on the API', async () => {
      const session = await login();
      expect(session.token).to.be.a('string');
      expect(session.user).to.include({ username: 'admin', disabled: false });
      expect(session.user).to.not.have.property('password_hash');
      expect(session.expires_at).to.be.closeTo(Date.now() / 1000 + 600, 5);
      await core.get('/api/v1/domains', 200, { token: session.token });
    });

    it('stores only the SHA-256 of a session token', async () => {
      const session = await login();
      const rows = await core.db.adminSession.findMany();
      expect(JSON.stringify(rows)).to.not.include(session.token);
      expect(rows.map((row) => row.token_hash)).to.include(createHash('sha256').update(session.token).digest('hex'));
    });

    it('answers a wrong password and an unknown user with the same 401', async () => {
      const wrongPassword = await core.post('/api/v1/admin/login', { username: 'admin', password: 'wrong-password' }, 401);
      const unknownUser = await core.post('/api/v1/admin/login', { username: 'nobody', password: 'admin-password' }, 401);
      expect(wrongPassword).to.deep.equal(unknownUser);
      expect(wrongPassword.error).to.equal('invalid username or password');
    });

    it('rejects a login without a username with 422', async () => {
      expect((await core.post('/api/v1/admin/login', { password: 'x' }, 422)).field).to.equal('username');
    });

    it('shows the session user on /admin/me and refuses the API token there', async () => {
      const session = await login();
      const me = (await core.get('/api/v1/admin/me', 200, { token: session.token })).data;
      expect(me.user.username).to.equal('admin');
      expect(me.session.expires_at).to.equal(session.expires_at);
      expect((await core.get('/api/v1/admin/me', 403, { token: 'the-api-token' })).error).to.equal('admin session required');
    });

    it('revokes the session on logout', async () => {
      const session = await login();
      expect(await core.post('/api/v1/admin/logout', undefined, 200, { token: session.token })).to.deep.equal({ ok: true });
      await core.get('/api/v1/domains', 401, { token: session.token });
      await core.get('/api/v1/admin/me', 401, { token: session.token });
    });

    it('rejects an expired session', async () => {
      const session = await login();
      await core.db.adminSession.updateMany({ where: { token_hash: createHash('sha256').update(session.token).digest('hex') }, data: { expires_at: new Date(Date.now() - 1000) } });
      await core.get('/api/v1/domains', 401, { token: session.token });
    });

    it('refuses a disabled user at login and on live sessions', async () => {
      await core.db.adminUser.create({ data: { username: 'temp', password_hash: (await core.db.adminUser.findFirstOrThrow({ where: { username: 'admin' } })).password_hash } });
      const session = await login('temp');
      await core.db.adminUser.update({ where: { username: 'temp' }, data: { disabled: true } });
      await core.get('/api/v1/domains', 401, { token: session.token });
      await core.post('/api/v1/admin/login', { username: 'temp', password: 'admin-password' }, 401);
    });

    it('requires the token on the readiness detail', async () => {
      await core.get('/api/v1/readiness', 401);
      expect((await core.get('/api/v1/readiness', 200, { token: 'the-api-token' })).status).to.equal('ok');
    });
  });

  describe('without CDN_API_TOKEN', () => {
    let core: TestCore;
    before(async () => {
      core = await TestCore.start(ADMIN);
    });
    after(async () => {
      await core.stop();
    });

    it('accepts control-plane requests without a bearer', async () => {
      expect((await core.get('/api/v1/domains')).data).to.be.an('array');
    });

    it('still rejects a bearer that is not a live session', async () => {
      expect((await core.get('/api/v1/domains', 401, { token: 'stale-session' })).error).to.equal('invalid token');
    });

    it('still requires an admin session on /admin/me', async () => {
      await core.get('/api/v1/admin/me', 401);
    });
  });
});
