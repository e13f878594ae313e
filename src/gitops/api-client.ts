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

/** A small client of the core REST API, used by plan and apply exactly like any other API caller. */
export class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token?: string,
  ) {}

  async request<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'x-request-id': `gitops-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}` };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.baseUrl.replace(/\/$/, '')}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : undefined;
    if (!response.ok) throw new ApiError(response.status, parsed, `${method} ${path}`);
    return parsed as T;
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
