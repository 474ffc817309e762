/**
 * The stand-in for mpesa-api's HttpService that docs/clients/mpesa-api.md gives partners: the client's own
 * service hands `http.request` only the host name, so the port of a base URL such as the simulator's is lost.
 * Same method signatures and result shape as the client's service, so the client cannot tell the difference.
 */
export interface HttpResult {
  method: string;
  path: string;
  statusCode: number;
  statusMessage: string;
  data: unknown;
}

export class PortKeepingHttp {
  private readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/$/, '');
  }

  get(path: string, { headers }: { headers: Record<string, string> }): Promise<HttpResult> {
    return this.send('GET', path, undefined, headers);
  }

  post(
    path: string,
    payload: unknown,
    { headers }: { headers: Record<string, string> },
  ): Promise<HttpResult> {
    return this.send('POST', path, JSON.stringify(payload), {
      'Content-Type': 'application/json',
      ...headers,
    });
  }

  private async send(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<HttpResult> {
    const response = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await response.text();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
    const result = { method, path, statusCode: response.status, statusMessage: response.statusText, data };
    if (response.ok) return result;
    // The client's own service rejects with the result object, and the client's callers expect that shape.
    throw result;
  }
}
