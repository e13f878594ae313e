import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server answered: its path, whether it carried the expected credentials, its status. */
export type GitRequest = { path: string; authorized: boolean; status: number };

// The CGI answer of git http-backend: header lines (a `Status:` among them), a blank line, the body.
function sendCgiAnswer(output: Buffer, res: ServerResponse): void {
  const crlf = output.indexOf('\r\n\r\n');
  const [end, separator] = crlf >= 0 ? [crlf, 4] : [output.indexOf('\n\n'), 2];
  const headers = output.subarray(0, end).toString('latin1').split(/\r?\n/);
  let status = 200;
  for (const line of headers) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
    else res.setHeader(name, value);
  }
  res.statusCode = status;
  res.end(output.subarray(end + separator));
}

/**
 * A private git repository host on 127.0.0.1: git's own smart-HTTP server (`git http-backend`)
 * behind node:http, answering 401 to any request without the expected Basic credentials.
 */
export class GitHttpServer {
  readonly requests: GitRequest[] = [];

  private constructor(
    private readonly server: Server,
    private readonly root: string,
    private readonly authorization: string,
  ) {}

  static async start(root: string, username: string, password: string): Promise<GitHttpServer> {
    const server = createServer();
    const host = new GitHttpServer(server, root, `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`);
    server.on('request', (req, res) => host.answer(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return host;
  }

  /** The address of a repository under the root, with `userinfo@` when given. */
  url(repository: string, userinfo = ''): string {
    return `http://${userinfo ? `${userinfo}@` : ''}127.0.0.1:${(this.server.address() as AddressInfo).port}/${repository}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const authorized = req.headers.authorization === this.authorization;
    res.on('finish', () => this.requests.push({ path: url.pathname, authorized, status: res.statusCode }));
    if (!authorized) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const backend = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: this.root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method,
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        HTTP_GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_USER: 'ci',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    const output: Buffer[] = [];
    backend.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    backend.on('close', () => sendCgiAnswer(Buffer.concat(output), res));
    req.pipe(backend.stdin);
  }
}
