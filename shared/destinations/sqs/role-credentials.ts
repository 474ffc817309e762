import type { RoleAssumer, RoleCredentials } from '../ports';

/** The session asked of STS: an hour, the most a role assumed from the function's own role may last. */
const ROLE_SESSION_SECONDS = 3600;
/** Credentials are renewed this long before they expire, so no attempt starts with a session about to end. */
export const CREDENTIALS_RENEW_BEFORE_MS = 5 * 60_000;

/**
 * Each partner role's credentials, assumed once and kept until CREDENTIALS_RENEW_BEFORE_MS before they
 * expire (one AssumeRole an hour per role and warm function, not one per message). Concurrent attempts
 * share one pending AssumeRole; a failed one is not kept, so the next attempt asks again.
 */
export class RoleCredentialCache {
  private readonly entries = new Map<string, Promise<RoleCredentials>>();

  constructor(
    private readonly roles: RoleAssumer,
    private readonly now: () => Date,
  ) {}

  async get(role: { roleArn: string; externalId?: string; sessionName: string }): Promise<RoleCredentials> {
    const key = `${role.roleArn}\n${role.externalId ?? ''}`;
    const cached = this.entries.get(key);
    if (cached) {
      const credentials = await cached.catch(() => undefined);
      if (
        credentials &&
        credentials.expiration.getTime() - CREDENTIALS_RENEW_BEFORE_MS > this.now().getTime()
      )
        return credentials;
      if (this.entries.get(key) !== cached) return this.get(role);
    }
    const pending = this.roles.assumeRole({
      roleArn: role.roleArn,
      ...(role.externalId !== undefined ? { externalId: role.externalId } : {}),
      sessionName: role.sessionName,
      durationSeconds: ROLE_SESSION_SECONDS,
    });
    this.entries.set(key, pending);
    pending.catch(() => {
      if (this.entries.get(key) === pending) this.entries.delete(key);
    });
    return pending;
  }
}
