import type { z } from 'zod';
import type { RelayConfig } from '../config/schema';
import type { CallbackServices } from '../domain/callback-services';
import type { RelayError } from '../domain/errors';
import type { HttpMethod, HttpResponse, InboundRequest } from '../http/types';

export interface AccountContext<S> {
  provider: string;
  id: string;
  pathSecret: string | undefined;
  settings: S;
}

export interface RouteContext<S> {
  request: InboundRequest;
  account: AccountContext<S>;
  /** Values of the `{name}` segments of the route's path pattern. */
  params: Record<string, string>;
  /** The parsed JSON body. */
  body: unknown;
  route: { name: string };
  /** Request path with the account's path secret replaced by {secret}: what receipts store. */
  storedPath: string;
  /** How this request was authenticated so far; routes add their provider's checks. Stored on the receipt. */
  verification: Record<string, unknown>;
  services: CallbackServices;
  config: RelayConfig;
}

export interface ProviderRoute<S> {
  /** Stable name stored on receipts (e.g. "callback", "stk", "c2b-validation"). */
  name: string;
  methods: readonly HttpMethod[];
  /** Pattern relative to /v1/{provider}/{account}/[{secret}/], e.g. "{kind}/{referenceId}". */
  path: string;
  handle(ctx: RouteContext<S>): Promise<HttpResponse>;
}

export interface RegistrationRules<S> {
  kinds: readonly string[];
  /** Canonical form of a reference (e.g. lower-case UUIDs), so registration and callbacks agree. */
  normalizeReference?(reference: string): string;
  /** Returns a message when the reference cannot be a correlation id for this provider. */
  validateReference(reference: string): string | undefined;
  /** The URL to hand to the provider for this transaction, when the provider takes one per request. */
  callbackUrl?(input: {
    baseUrl: string;
    account: AccountContext<S>;
    kind: string;
    reference: string;
  }): string;
}

/**
 * One provider dialect. Adding a provider means adding a folder that exports one of these and
 * listing it in registry.ts; nothing else in the relay names a provider.
 */
export interface ProviderModule<S = unknown> {
  id: string;
  displayName: string;
  /** Provider-specific settings of accounts.<id>.<account> (the path secret is common and added by the registry). */
  accountSchema: z.ZodObject<z.ZodRawShape>;
  routes: readonly ProviderRoute<S>[];
  registration: RegistrationRules<S>;
  /**
   * The provider's own rejection format, when it expects one. The HTTP status still comes from
   * the single error mapping; only the body shape is the provider's.
   */
  formatError?(error: RelayError, statusCode: number, route: string | undefined): HttpResponse | undefined;
  /** URLs the account is configured with, so config validation can apply the URL rules to them. */
  configuredUrls?(settings: S): { key: string; url: string }[];
}
