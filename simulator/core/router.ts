import type { ProviderName, Reply, RequestContext } from './http';

export type Handler = (ctx: RequestContext) => Promise<Reply> | Reply;
export type RouteOwner = ProviderName | 'admin';

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
  owner: RouteOwner;
  /** Status calls are the ones the `status-5xx` and `status-slow` faults act on. */
  isStatusCall: boolean;
}

export type RouteMatch =
  | {
      kind: 'found';
      handler: Handler;
      owner: RouteOwner;
      isStatusCall: boolean;
      params: Record<string, string>;
    }
  | { kind: 'method-not-allowed'; owner: RouteOwner; allowed: string[] }
  | { kind: 'not-found' };

/** A deliberately tiny router: literal segments and `:param` segments, nothing else. */
export class Router {
  private readonly routes: Route[] = [];

  add(
    owner: RouteOwner,
    method: string,
    pattern: string,
    handler: Handler,
    options: { statusCall?: boolean } = {},
  ): void {
    this.routes.push({
      method,
      segments: split(pattern),
      handler,
      owner,
      isStatusCall: options.statusCall ?? false,
    });
  }

  match(method: string, path: string): RouteMatch {
    const parts = split(path);
    const allowed: string[] = [];
    let owner: RouteOwner | undefined;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method) {
        return {
          kind: 'found',
          handler: route.handler,
          owner: route.owner,
          isStatusCall: route.isStatusCall,
          params,
        };
      }
      allowed.push(route.method);
      owner ??= route.owner;
    }
    if (owner) return { kind: 'method-not-allowed', owner, allowed };
    return { kind: 'not-found' };
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith(':')) {
      params[p.slice(1)] = safeDecode(v);
    } else if (p !== v) {
      return undefined;
    }
  }
  return params;
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}
