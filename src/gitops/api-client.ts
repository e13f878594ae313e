/** An error answer of the core API, with its status and body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error?: string; field?: string; detail?: string } | undefined,
    readonly request: string,
  ) {
    super(`${request} answered ${status}: ${body?.error ?? 'error'}${body?.field ? ` (${body.field})` : ''}${body?.detail ? `: ${body.detail}` : ''}`);
  }
}

const PAGE = 500;

// A non-JSON answer (a proxy's error page, the wrong port) is reported with the URL, not as a JSON syntax error.
function parseBody(text: string, response: Response, url: string): any {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${url} answered ${response.status} with a body that is not JSON; is it the core API?`);
  }
}

/** A small client of the core REST API, used by plan and apply exactly like any other API caller. */
export class ApiClient {
  /** The highest X-CDN-Config-Change this client's writes were answered with: the last change its writes made to the published config. */
  configChange: bigint | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly token?: string,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  /** The same client, sending `headers` with every request too (the GitOps source of the writes), counting its own config changes. */
  withHeaders(headers: Record<string, string>): ApiClient {
    return new ApiClient(this.baseUrl, this.token, { ...this.extraHeaders, ...headers });
  }

  async request<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { ...this.extraHeaders, 'x-request-id': `gitops-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}` };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = `${this.baseUrl.replace(/\/$/, '')}${path}`;
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`could not reach the core API at ${url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    this.noteConfigChange(response.headers.get('x-cdn-config-change'));
    const text = await response.text();
    const parsed = parseBody(text, response, url);
    if (!response.ok) throw new ApiError(response.status, parsed, `${method} ${path}`);
    return parsed as T;
  }

  private noteConfigChange(header: string | null): void {
    if (!header || !/^\d{1,18}$/.test(header)) return;
    const change = BigInt(header);
    if (this.configChange === null || change > this.configChange) this.configChange = change;
  }

  /** Every item of a paged list. */
  async list<T = any>(path: string): Promise<T[]> {
    const items: T[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const separator = path.includes('?') ? '&' : '?';
      const page = (await this.request<{ data: T[] }>('GET', `${path}${separator}limit=${PAGE}&offset=${offset}`)).data;
      items.push(...page);
      if (page.length < PAGE) return items;
    }
  }
}
