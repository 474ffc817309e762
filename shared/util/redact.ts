/**
 * Secrets can reach the relay inside bodies (a Daraja queue-timeout echo carries the
 * SecurityCredential, an STK request its Password), in paths (path secrets) and in headers. Nothing of
 * them may reach storage, logs, events or error messages, whichever stage refused the request.
 */
export const REDACTED = '[REDACTED]';

/** Body members that hold credentials, in any provider's dialect. */
const SECRET_MEMBER_NAMES = [
  'securitycredential',
  'password',
  'initiatorpassword',
  'passkey',
  'consumersecret',
  'client_secret',
  'clientsecret',
  'api_key',
  'apikey',
  'callbackkey',
  'pin',
  'encryptedpin',
] as const;

/** `Security_Credential`, `consumer-secret`, `SECURITYCREDENTIAL`: one name, however it is spelled. */
function normalizedName(name: string): string {
  return name.toLowerCase().replace(/[_\-\s.]/g, '');
}

// Marked pure: a bundle that never redacts a body (the poller) leaves these tables out.
const SECRET_MEMBERS = /* @__PURE__ */ new Set<string>(
  /* @__PURE__ */ SECRET_MEMBER_NAMES.map(normalizedName),
);

/**
 * Members that echo the relay's own callback URLs (Daraja puts ResultURL/QueueTimeOutURL in ReferenceData
 * and in queue-timeout bodies): their path carries the account's path secret.
 */
const ECHOED_URL_MEMBER_NAMES = [
  'resulturl',
  'queuetimeouturl',
  'callbackurl',
  'confirmationurl',
  'validationurl',
] as const;
const ECHOED_URL_MEMBERS = /* @__PURE__ */ new Set<string>(ECHOED_URL_MEMBER_NAMES);

/** A name pattern that also matches the name with `_` or `-` between any of its letters. */
function spelledAnyWay(name: string): string {
  return name.split('').join('[_-]?');
}

let secretMemberInText: RegExp | undefined;

/**
 * A credential name followed by its value in any syntax a refused body may use: JSON (`"Password": "…"`),
 * single quotes, form encoding (`Password=…`), a name/value pair flattened into an array
 * (`"Password", "…"`), a `{"Key": "Password", "Value": "…"}` item, or JSON inside a JSON string (`"{\\"Password\\":\\"…\\"}"`, quotes escaped).
 * Built on first use, so a bundle that never redacts text (the poller) leaves it out.
 */
function secretMemberInTextPattern(): RegExp {
  if (!secretMemberInText) {
    const names = [...SECRET_MEMBER_NAMES, ...ECHOED_URL_MEMBER_NAMES]
      .map((name) => spelledAnyWay(normalizedName(name)))
      .join('|');
    secretMemberInText = new RegExp(
      String.raw`(^|[^A-Za-z0-9_])(${names})(\\*["']?\s*,\s*\\*"(?:Value|value)\\*"\s*:\s*|\\*["']?\s*[:=,]\s*)(\\+"(?:[^"\\]|\\+[^"\\])*?\\+"|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s,&}\]"'\\]+)`,
      'gi',
    );
  }
  return secretMemberInText;
}

function isSecretMember(name: string): boolean {
  return SECRET_MEMBERS.has(normalizedName(name));
}

/** A member echoing one of the relay's callback URLs (path secret inside). */
function isEchoedUrlMember(name: string): boolean {
  return ECHOED_URL_MEMBERS.has(normalizedName(name));
}

/** What is kept of an echoed callback URL: its origin, never its path (the path secret is in it). */
function redactEchoedUrl(value: unknown): string {
  if (typeof value === 'string') {
    try {
      const url = new URL(value);
      if (url.protocol === 'http:' || url.protocol === 'https:') return `${url.origin}/${REDACTED}`;
    } catch {
      // Not a URL: nothing of it is kept.
    }
  }
  return REDACTED;
}

/** A string value that is itself JSON (an object or an array), parsed; undefined otherwise. */
function embeddedJson(value: string): object | undefined {
  const trimmed = value.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return parsed !== null && typeof parsed === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export interface Redaction {
  value: unknown;
  /** JSON paths of the members that were redacted, e.g. ["SecurityCredential"]. */
  paths: string[];
}

/**
 * A copy of a parsed JSON value with every secret member replaced. Iterative, so no input depth can
 * overflow the stack (the request guards bound the depth anyway).
 */
export function redactJson(value: unknown): Redaction {
  const paths: string[] = [];
  const root: { value: unknown } = { value: undefined };
  const stack: { source: unknown; assign: (v: unknown) => void; path: string }[] = [
    { source: value, assign: (v) => (root.value = v), path: '' },
  ];
  while (stack.length) {
    const { source, assign, path } = stack.pop()!;
    if (Array.isArray(source)) {
      const copy: unknown[] = new Array(source.length);
      assign(copy);
      source.forEach((item, i) =>
        stack.push({ source: item, assign: (v) => (copy[i] = v), path: `${path}[${i}]` }),
      );
    } else if (source !== null && typeof source === 'object') {
      const copy: Record<string, unknown> = {};
      assign(copy);
      const define = (name: string, v: unknown) =>
        Object.defineProperty(copy, name, { value: v, enumerable: true, writable: true, configurable: true });
      // Members are defined in order first and filled when popped, so the copy keeps the order received.
      for (const name of Object.keys(source)) define(name, undefined);
      // Daraja's `{Key|Name, Value}` items: `{"Key":"SecurityCredential","Value":"…"}` hides its value too.
      const record = source as Record<string, unknown>;
      const labels = [record.Key, record.Name, record.key, record.name].filter(
        (label): label is string => typeof label === 'string',
      );
      const secretPair = labels.some(isSecretMember);
      const urlPair = labels.some(isEchoedUrlMember);
      for (const [name, member] of Object.entries(source)) {
        const memberPath = path ? `${path}.${name}` : name;
        const isValue = name === 'Value' || name === 'value';
        const secret = isSecretMember(name) || (secretPair && isValue);
        const echoedUrl = isEchoedUrlMember(name) || (urlPair && isValue);
        if ((secret || echoedUrl) && member !== null && member !== undefined && member !== '') {
          Object.defineProperty(copy, name, {
            value: secret ? REDACTED : redactEchoedUrl(member),
            enumerable: true,
            writable: true,
            configurable: true,
          });
          paths.push(memberPath);
          continue;
        }
        // A JSON document inside a string value (`"ReferenceData": "{\"Password\":\"…\"}"`) is redacted too.
        const embedded = typeof member === 'string' ? embeddedJson(member) : undefined;
        if (embedded) {
          const inner = redactJson(embedded);
          if (inner.paths.length) {
            define(name, JSON.stringify(inner.value));
            paths.push(...inner.paths.map((p) => `${memberPath}#${p}`));
            continue;
          }
        }
        stack.push({
          source: member,
          assign: (v) =>
            Object.defineProperty(copy, name, {
              value: v,
              enumerable: true,
              writable: true,
              configurable: true,
            }),
          path: memberPath,
        });
      }
    } else {
      assign(source);
    }
  }
  return { value: root.value, paths };
}

/** The same redaction on text that may not even parse (quarantined bodies): `"Password":"…"` → `"Password":"[REDACTED]"`. */
export function redactJsonText(text: string): string {
  return text.replace(
    secretMemberInTextPattern(),
    (_match, before: string, name: string, separator: string, value: string) => {
      const quote = /^(\\*"|')/.exec(value)?.[0] ?? '';
      return `${before}${name}${separator}${quote}${REDACTED}${quote}`;
    },
  );
}

/** The credential values a text carries under a credential name, in any of the syntaxes above. */
function credentialValuesIn(text: string): string[] {
  const values: string[] = [];
  for (const match of text.matchAll(secretMemberInTextPattern())) {
    const value = match[4] ?? '';
    const quote = /^(\\*"|')/.exec(value)?.[0] ?? '';
    const bare = quote ? value.slice(quote.length, -quote.length) : value;
    if (bare.length >= 4) values.push(bare);
  }
  return values;
}

/** Long opaque tokens (base64 credentials, signatures): what a credential looks like when its name is gone. */
const OPAQUE_TOKEN = /[A-Za-z0-9+/]{24,}={0,2}/g;

/**
 * What may be kept of a body the relay refused, as text: credential members redacted by name, also
 * inside a percent-encoded body (a form) by scrubbing the values its decoded text names; and when the
 * text is not a JSON object (names may be gone: an array of values, garbage), long opaque tokens are
 * masked too, keeping their first 4 characters and length for people investigating.
 */
export function redactRefusedBody(text: string): string {
  let out = redactJsonText(text);
  if (out.includes('%')) {
    try {
      const values = credentialValuesIn(decodeURIComponent(out.replace(/\+/g, ' ')));
      out = createScrubber(values, 4)(out);
    } catch {
      // Not percent-encoding after all: nothing more to find there.
    }
  }
  let isObject = false;
  try {
    const parsed: unknown = JSON.parse(out);
    isObject = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    isObject = false;
  }
  if (isObject) return out;
  return out.replace(OPAQUE_TOKEN, (token) => `${token.slice(0, 4)}…[${token.length} chars masked]`);
}

export type Scrubber = (text: string) => string;

/**
 * Replaces every occurrence of a known secret value (path secrets, keys, tokens), raw or
 * percent-encoded, in a text. Built once from the config.
 */
export function createScrubber(secrets: readonly (string | undefined)[], minLength = 8): Scrubber {
  const needles = new Set<string>();
  for (const secret of secrets) {
    // Short values would scrub ordinary words; the config requires long secrets anyway.
    if (!secret || secret.length < minLength) continue;
    needles.add(secret);
    needles.add(encodeURIComponent(secret));
  }
  const list = [...needles].sort((a, b) => b.length - a.length);
  if (list.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const needle of list) if (out.includes(needle)) out = out.split(needle).join(REDACTED);
    return out;
  };
}

/**
 * The one walk of a value for configured secrets: strings scrubbed, other primitives kept, and each
 * object what `visit` makes of it at its depth (0 for the value itself): undefined to copy it member by
 * member (an array stays an array; undefined members are kept), else the value to put in its place.
 */
function scrubWalk(
  value: unknown,
  scrub: Scrubber,
  visit: (value: object, depth: number) => unknown,
  depth = 0,
): unknown {
  if (typeof value === 'string') return scrub(value);
  if (value === null || typeof value !== 'object') return value;
  const replaced = visit(value, depth);
  if (replaced !== undefined) return replaced;
  const walk = (member: unknown) => scrubWalk(member, scrub, visit, depth + 1);
  if (Array.isArray(value)) return value.map(walk);
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) out[name] = walk(member);
  return out;
}

/**
 * A parsed value (a callback's reports and facts, a decision) with every string scrubbed, at any depth:
 * arrays and plain objects walked, undefined members kept; anything else (a Date, a Map, an Error, a
 * class instance) kept as is, the same instance.
 */
export function scrubbedDeep<T>(value: T, scrub: Scrubber): T {
  return scrubWalk(value, scrub, (object) =>
    Array.isArray(object) || Object.getPrototypeOf(object) === Object.prototype ? undefined : object,
  ) as T;
}

/**
 * Scrubs a log/event payload: strings scrubbed, errors reduced to name and message. Log fields are
 * mostly flat: the first level is walked member by member (whatever the object; undefined members kept),
 * anything below it (and an array at the top) is copied through JSON, scrubbed as text: undefined
 * members dropped, a Date its ISO string, a Map `{}`, a cycle "[unserializable]".
 */
export function scrubValue(value: unknown, scrub: Scrubber): unknown {
  return scrubWalk(value, scrub, (object, depth) => {
    if (object instanceof Error) return { name: object.name, message: scrub(object.message) };
    if (depth === 0 && !Array.isArray(object)) return undefined;
    try {
      return JSON.parse(scrub(JSON.stringify(object)));
    } catch {
      return '[unserializable]';
    }
  });
}

/**
 * Scrubs first, then truncates to at most `limit` characters (plus the `marker` when cut). Cutting
 * first can leave a prefix of a secret the scrubber no longer recognises (a 64 KB cut kept 16
 * characters of a bearer token); scrubbing first cannot. Every excerpt of untrusted text goes through
 * this, never `scrub(text.slice(…))`.
 */
export function scrubThenTruncate(text: string, limit: number, scrub: Scrubber, marker = '…'): string {
  const clean = scrub(text);
  return clean.length > limit ? `${clean.slice(0, limit)}${marker}` : clean;
}

/** The same, cut at a byte length on a character boundary (quarantined bodies are bounded in bytes). */
export function scrubThenTruncateBytes(text: string, limitBytes: number, scrub: Scrubber): string {
  const clean = scrub(text);
  const bytes = Buffer.from(clean, 'utf8');
  if (bytes.length <= limitBytes) return clean;
  // A multi-byte character cut in half decodes to U+FFFD: dropped, not kept as garbage.
  return bytes
    .subarray(0, limitBytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}
