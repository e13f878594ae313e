import http, { type IncomingHttpHeaders } from 'node:http';

export type RawResponse = { status: number; headers: IncomingHttpHeaders; body: Buffer; text: string };
export type RawRequest = { port: number; host?: string; method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer; agent?: http.Agent | false };

/** One HTTP request over node:http (fetch cannot set Host), the whole body read. */
export function rawRequest(request: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      { host: '127.0.0.1', port: request.port, method: request.method ?? 'GET', path: request.path ?? '/', headers: { ...(request.host ? { host: request.host } : {}), ...request.headers }, agent: request.agent ?? false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body, text: body.toString() });
        });
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}
