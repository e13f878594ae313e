import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import pino from 'pino';
import { ClientClosedError, OriginError, type OriginErrorKind } from '../../../src/edge/origin/origin-error.js';
import { RequestContext } from '../../../src/edge/pipeline/context.js';
import { hygienePhase } from '../../../src/edge/pipeline/hygiene-phase.js';
import type { Phase } from '../../../src/edge/pipeline/phase.js';
import { PipelineRunner } from '../../../src/edge/pipeline/runner.js';
import { listen, request, sleep, type TestServer } from '../origin/support.js';

type LogLine = { level: number; msg: string; err?: { stack?: string }; kind?: string; requestId?: string };
type Funnel = { server: TestServer; logs: LogLine[]; logged: RequestContext[] };

const WARN = 40;
const ERROR = 50;

function failing(error: () => unknown, async: boolean): Phase {
  return {
    name: 'failing',
    run: () => {
      if (async) return Promise.reject(error());
      throw error();
    },
  };
}

const tagging: Phase = {
  name: 'tag',
  run(ctx) {
    ctx.response!.headers['x-tagged'] = 'yes';
    return false;
  },
};

describe('edge pipeline error funnel', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  // A node:http server running `requestPhases` then `responsePhases` through the runner, its log lines and logged contexts kept.
  async function funnel(requestPhases: Phase[], responsePhases: Phase[] = [tagging, hygienePhase]): Promise<Funnel> {
    const logs: LogLine[] = [];
    const logged: RequestContext[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
    const runner = new PipelineRunner(requestPhases, responsePhases, (ctx) => logged.push(ctx), logger);
    const server = await listen(
      http.createServer((req, res) => {
        const ctx = new RequestContext(req, res, { config: { domainsById: new Map() } as never, requestId: randomUUID(), clientIp: '203.0.113.9', peer: '203.0.113.9', scheme: 'http' });
        ctx.host = 'example.test';
        runner.run(ctx);
      }),
    );
    servers.push(server);
    return { server, logs, logged };
  }

  const pages: [OriginErrorKind, number][] = [
    ['connect', 502],
    ['tls', 502],
    ['timeout', 504],
    ['breaker_open', 503],
    ['no_origin', 503],
    ['overloaded', 503],
    ['too_large', 413],
  ];
  for (const [kind, status] of pages) {
    for (const async of [false, true]) {
      it(`answers an origin ${kind} failure ${async ? 'rejected' : 'thrown'} by any phase with its ${status} page, after the response phases`, async () => {
        const { server, logs } = await funnel([failing(() => new OriginError(kind, `${kind} at 10.0.0.7:8080`, 'origin-1'), async)]);
        const reply = await request(server.port, { headers: { connection: 'keep-alive' } });
        expect(reply.status).to.equal(status);
        expect(reply.headers['x-request-id']).to.be.a('string');
        expect(reply.body).to.contain(String(reply.headers['x-request-id'])).and.not.contain('10.0.0.7');
        expect(reply.headers['x-tagged']).to.equal('yes');
        expect(reply.headers.connection).to.equal(kind === 'too_large' ? 'close' : 'keep-alive');
        expect(logs.map((line) => [line.level, line.msg, line.kind])).to.deep.equal([[WARN, 'origin request failed', kind]]);
        expect(logs[0]).not.to.have.property('err');
      });
    }
  }

  it('answers any other failure with the 500 page and logs it at error with its stack', async () => {
    const { server, logs } = await funnel([failing(() => new TypeError('a bug'), true)]);
    const reply = await request(server.port);
    expect(reply.status).to.equal(500);
    expect(reply.headers['x-request-id']).to.be.a('string');
    expect(logs.map((line) => [line.level, line.msg])).to.deep.equal([[ERROR, 'edge pipeline failed']]);
    expect(logs[0].err?.stack).to.contain('a bug');
  });

  it('writes the bare 500 page, once, when a response phase fails on the error page too', async () => {
    const broken: Phase = {
      name: 'broken',
      run: () => {
        throw new Error('response phase bug');
      },
    };
    const { server, logs, logged } = await funnel([failing(() => new OriginError('timeout'), false)], [broken]);
    const reply = await request(server.port);
    expect(reply.status).to.equal(500);
    expect(reply.headers['x-request-id']).to.be.a('string');
    expect(logs.map((line) => line.msg)).to.deep.equal(['origin request failed', 'edge error page failed']);
    expect(logged).to.have.length(1);
  });

  it('closes the connection of a client that left, logging nothing and running the log phase once', async () => {
    const { server, logs, logged } = await funnel([failing(() => new ClientClosedError(), true)]);
    const error = await request(server.port).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error).to.be.instanceOf(Error);
    await sleep(20);
    expect(logs).to.deep.equal([]);
    expect(logged).to.have.length(1);
    expect(logged[0].res.headersSent).to.equal(false);
  });
});
