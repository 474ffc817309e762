import type { SecretReader } from '../../config/secret-reader';
import { type DestinationConfig, webhookSecretSchema } from '../../config/schema';

/** A `signingSecretId` could not give signing secrets. The message names the secret id, never a value. */
class SigningSecretError extends Error {
  constructor(
    readonly secretId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SigningSecretError';
  }
}

/**
 * A destination's signing secrets, current first: `signingSecretId` read through `read` (Secrets Manager
 * behind its TTL cache in AWS: a rotation reaches warm functions within the cache's TTL), holding
 * `{"signingSecret": "whsec_…", "previousSigningSecret": "whsec_…"}` (the previous one only during a
 * rotation: both signatures are sent); else the config's inline `signingSecrets` (`npm start`).
 */
export async function signingSecretsOf(
  destination: Pick<DestinationConfig, 'signingSecrets' | 'signingSecretId'>,
  read: SecretReader | undefined,
): Promise<string[]> {
  const secretId = destination.signingSecretId;
  if (secretId === undefined) return [...destination.signingSecrets];
  if (!read) throw new SigningSecretError(secretId, `signing secret "${secretId}": no secret reader here`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await read(secretId));
  } catch (cause) {
    throw new SigningSecretError(secretId, `signing secret "${secretId}" could not be read as JSON`, {
      cause,
    });
  }
  const { signingSecret, previousSigningSecret } = (parsed ?? {}) as Record<string, unknown>;
  const secrets = [signingSecret, previousSigningSecret].filter((s) => s !== undefined);
  if (signingSecret === undefined || !secrets.every((s) => webhookSecretSchema.safeParse(s).success))
    throw new SigningSecretError(
      secretId,
      `signing secret "${secretId}": needs {"signingSecret": "whsec_…"} (and optionally "previousSigningSecret"), each whsec_ + base64 of 24 to 64 bytes`,
    );
  return secrets as string[];
}
