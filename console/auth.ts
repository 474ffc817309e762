/**
 * Who the console is signed in as. Locally (`npm start`) the operator types the management bearer token
 * once; it lives in this tab's sessionStorage only, never in the bundle. In AWS the console signs in with
 * the Cognito user pool the construct creates (hosted UI, OAuth authorization code flow with PKCE) and
 * sends the Cognito ID token; the console API's JWT authorizer checks it.
 */

interface LocalSettings {
  mode: 'local';
}

export interface CognitoSettings {
  mode: 'cognito';
  /** Base URL of the console API (API Gateway with a Cognito JWT authorizer). */
  apiUrl: string;
  /** Hosted UI domain, `https://<prefix>.auth.<region>.amazoncognito.com`. */
  cognitoDomain: string;
  clientId: string;
  /** Where the hosted UI sends the browser back: this page. */
  redirectUri: string;
  scopes: string[];
}

export type ConsoleSettings = LocalSettings | CognitoSettings;

const TOKEN_KEY = 'relay-console.token';
/** Who is at the keyboard, as typed at a local sign-in: sent as X-Relay-Actor (the shared token names nobody). */
const ACTOR_KEY = 'relay-console.actor';
const PKCE_KEY = 'relay-console.pkce';

/** `config.json` beside the page: written by the construct in AWS, served as `{mode:"local"}` by npm start. */
export async function loadSettings(): Promise<ConsoleSettings> {
  try {
    const response = await fetch('config.json', { cache: 'no-store' });
    if (response.ok) return (await response.json()) as ConsoleSettings;
  } catch {
    // No config beside the page: a local relay.
  }
  return { mode: 'local' };
}

export function currentToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** The name typed at a local sign-in; null when none was (a named token, Cognito). */
export function currentActorName(): string | null {
  return sessionStorage.getItem(ACTOR_KEY);
}

export function signInLocally(token: string, actor = ''): void {
  signedOutByPerson = false;
  sessionStorage.setItem(TOKEN_KEY, token.trim());
  if (actor.trim()) sessionStorage.setItem(ACTOR_KEY, actor.trim());
  else sessionStorage.removeItem(ACTOR_KEY);
}

/** A refused token: this tab forgets it (other tabs keep theirs: they may hold another). */
export function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(ACTOR_KEY);
}

/**
 * A new tab without a new sign-in (docs/console.md#a-transaction-in-a-new-tab). The token stays in each
 * tab's sessionStorage; a tab that has none asks the console's other open tabs on a BroadcastChannel
 * (same origin only, nothing written to disk) and takes the first answer. So a transaction's link opened
 * in a new tab is signed in while a signed-in tab is open, and a browser closed or a sign-out forgets it.
 */
const HANDOFF_CHANNEL = 'relay-console.sign-in';
type HandoffMessage =
  | { type: 'ask'; id: string }
  | { type: 'token'; to: string; token: string; actor?: string | null }
  | { type: 'signed-out' };

let channel: BroadcastChannel | null = null;
let asking: string | null = null;
/**
 * The person signed out (here or in another tab): this tab asks no other tab for a sign-in until the person
 * signs in again. Another tab may not have heard of the sign-out yet when this one asks, and would hand
 * back the very sign-in the person ended.
 */
let signedOutByPerson = false;
let onHandedOver: () => void = () => undefined;
let onSignedOutElsewhere: () => void = () => undefined;

export function startHandoff(hooks: { handedOver: () => void; signedOutElsewhere: () => void }): void {
  if (typeof BroadcastChannel !== 'function') return;
  onHandedOver = hooks.handedOver;
  onSignedOutElsewhere = hooks.signedOutElsewhere;
  channel = new BroadcastChannel(HANDOFF_CHANNEL);
  channel.onmessage = (message: MessageEvent<HandoffMessage>) => {
    const m = message.data;
    const token = currentToken();
    if (m?.type === 'ask' && token)
      channel?.postMessage({ type: 'token', to: m.id, token, actor: currentActorName() });
    else if (m?.type === 'token' && m.to === asking && !token && typeof m.token === 'string') {
      asking = null;
      signInLocally(m.token, typeof m.actor === 'string' ? m.actor : '');
      onHandedOver();
    } else if (m?.type === 'signed-out') {
      signedOutByPerson = true;
      asking = null;
      if (!token) return;
      signOut();
      onSignedOutElsewhere();
    }
  };
}

/** This tab has no token: asks the other tabs for theirs (the answer arrives through `handedOver`). */
export function askOtherTabs(): void {
  if (!channel || currentToken() || signedOutByPerson) return;
  asking = crypto.randomUUID();
  channel.postMessage({ type: 'ask', id: asking });
}

/** Sign-out by the person: every tab of the console in this browser forgets the token. */
export function signOutEverywhere(): void {
  signedOutByPerson = true;
  asking = null;
  signOut();
  channel?.postMessage({ type: 'signed-out' });
}

function base64Url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Sends the browser to the hosted UI with a fresh PKCE verifier and state kept in this tab. */
export async function startCognitoSignIn(settings: CognitoSettings): Promise<void> {
  const verifier = base64Url(crypto.getRandomValues(new Uint8Array(32)));
  const state = base64Url(crypto.getRandomValues(new Uint8Array(16)));
  const challenge = base64Url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  sessionStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, state }));
  const url = new URL('/oauth2/authorize', settings.cognitoDomain);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: settings.clientId,
    redirect_uri: settings.redirectUri,
    scope: settings.scopes.join(' '),
    state,
    code_challenge_method: 'S256',
    code_challenge: challenge,
  }).toString();
  location.assign(url.toString());
}

/** Back from the hosted UI with `?code=…&state=…`: trades the code for tokens (public client, PKCE). */
export async function finishCognitoSignIn(settings: CognitoSettings): Promise<boolean> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  if (!code) return false;
  const saved = JSON.parse(sessionStorage.getItem(PKCE_KEY) ?? 'null') as {
    verifier: string;
    state: string;
  } | null;
  sessionStorage.removeItem(PKCE_KEY);
  history.replaceState(null, '', location.pathname + location.hash);
  if (!saved || saved.state !== params.get('state'))
    throw new Error('Sign-in state does not match; sign in again');
  const response = await fetch(new URL('/oauth2/token', settings.cognitoDomain), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: settings.clientId,
      code,
      redirect_uri: settings.redirectUri,
      code_verifier: saved.verifier,
    }),
  });
  if (!response.ok) throw new Error(`Sign-in failed: the token endpoint answered ${response.status}`);
  // The ID token: it names the person (sub, e-mail) and their groups (roles), which the relay records on
  // every action; the console API's JWT authorizer accepts it (its audience is this client).
  const tokens = (await response.json()) as { id_token: string };
  sessionStorage.setItem(TOKEN_KEY, tokens.id_token);
  return true;
}
