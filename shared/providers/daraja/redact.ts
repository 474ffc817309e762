/**
 * Daraja bodies can carry credentials: queue-timeout notices echo the original request with its
 * `SecurityCredential` (the encrypted initiator password), STK requests carry `Password`. None of them
 * may reach storage or logs, so every Daraja body is redacted before anything is stored.
 */
const SECRET_MEMBERS = /^(securitycredential|password|initiatorpassword|passkey|consumersecret)$/i;
export const REDACTED = '[REDACTED]';

export interface Redaction {
  value: unknown;
  /** JSON paths of the members that were redacted, e.g. ["SecurityCredential"]. */
  paths: string[];
}

export function redactSecrets(value: unknown, path = ''): Redaction {
  if (Array.isArray(value)) {
    const paths: string[] = [];
    const items = value.map((item, i) => {
      const r = redactSecrets(item, `${path}[${i}]`);
      paths.push(...r.paths);
      return r.value;
    });
    return { value: items, paths };
  }
  if (value !== null && typeof value === 'object') {
    const paths: string[] = [];
    const out: Record<string, unknown> = {};
    for (const [name, member] of Object.entries(value)) {
      const memberPath = path ? `${path}.${name}` : name;
      if (SECRET_MEMBERS.test(name) && member !== null && member !== undefined && member !== '') {
        out[name] = REDACTED;
        paths.push(memberPath);
        continue;
      }
      const r = redactSecrets(member, memberPath);
      out[name] = r.value;
      paths.push(...r.paths);
    }
    return { value: out, paths };
  }
  return { value, paths: [] };
}
