import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import type { RoleAssumer } from '../../destinations/ports';

/**
 * STS AssumeRole for the sqs destination type: the partner's role in their account, with their external id
 * (the confused-deputy guard the partner's trust policy names). The regional endpoint of the function's own
 * region (the SDK's default) keeps the call inside the region; errors keep the SDK's `name`
 * (AccessDenied…) so the type tells a permanent refusal from a retryable one. Sessions are cached by the
 * type (shared/destinations/sqs/role-credentials.ts), not here.
 */
export function stsRoleAssumer(client: STSClient = new STSClient({})): RoleAssumer {
  return {
    async assumeRole({ roleArn, externalId, sessionName, durationSeconds }) {
      const answer = await client.send(
        new AssumeRoleCommand({
          RoleArn: roleArn,
          RoleSessionName: sessionName,
          DurationSeconds: durationSeconds,
          ...(externalId !== undefined ? { ExternalId: externalId } : {}),
        }),
      );
      const credentials = answer.Credentials;
      if (
        !credentials?.AccessKeyId ||
        !credentials.SecretAccessKey ||
        !credentials.SessionToken ||
        !credentials.Expiration
      ) {
        // Not a refusal: an answer without a session is retried on the destination's schedule.
        throw Object.assign(new Error(`STS answered AssumeRole for ${roleArn} without credentials`), {
          name: 'IncompleteAssumeRoleAnswer',
        });
      }
      return {
        accessKeyId: credentials.AccessKeyId,
        secretAccessKey: credentials.SecretAccessKey,
        sessionToken: credentials.SessionToken,
        expiration: credentials.Expiration,
      };
    },
  };
}
