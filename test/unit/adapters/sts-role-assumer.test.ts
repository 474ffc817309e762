import { AssumeRoleCommand, STSClient, STSServiceException } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { stsRoleAssumer } from '../../../shared/adapters/sqs/partner-role';

const ROLE = 'arn:aws:iam::210987654321:role/relay-deliveries';
const sts = mockClient(STSClient);
// The mock patches the client class every later file of this worker shares: undo it.
afterAll(() => sts.restore());

afterEach(() => sts.reset());

describe('the STS adapter of sqs destinations', () => {
  it("asks for the partner's role with their external id and answers the session", async () => {
    // Prepare
    const expiration = new Date('2026-11-29T15:00:00Z');
    sts.on(AssumeRoleCommand).resolves({
      Credentials: {
        AccessKeyId: 'ASIAPARTNER',
        SecretAccessKey: 'partner-secret',
        SessionToken: 'partner-session',
        Expiration: expiration,
      },
    });

    // Act
    const session = await stsRoleAssumer(new STSClient({ region: 'af-south-1' })).assumeRole({
      roleArn: ROLE,
      externalId: 'partner-external-id',
      sessionName: 'relay-delivery-books',
      durationSeconds: 3600,
    });

    // Assess
    expect(sts.commandCalls(AssumeRoleCommand).map((call) => call.args[0].input)).toEqual([
      {
        RoleArn: ROLE,
        RoleSessionName: 'relay-delivery-books',
        DurationSeconds: 3600,
        ExternalId: 'partner-external-id',
      },
    ]);
    expect(session).toEqual({
      accessKeyId: 'ASIAPARTNER',
      secretAccessKey: 'partner-secret',
      sessionToken: 'partner-session',
      expiration,
    });
  });

  it('sends no external id when the destination names none', async () => {
    sts.on(AssumeRoleCommand).resolves({
      Credentials: {
        AccessKeyId: 'A',
        SecretAccessKey: 'S',
        SessionToken: 'T',
        Expiration: new Date('2026-11-29T15:00:00Z'),
      },
    });

    await stsRoleAssumer(new STSClient({ region: 'af-south-1' })).assumeRole({
      roleArn: ROLE,
      sessionName: 'relay-delivery-books',
      durationSeconds: 3600,
    });

    expect(sts.commandCalls(AssumeRoleCommand)[0]!.args[0].input).not.toHaveProperty('ExternalId');
  });

  it("keeps STS's error name, so AccessDenied disables the destination instead of retrying", async () => {
    sts.on(AssumeRoleCommand).rejects(
      new STSServiceException({
        name: 'AccessDenied',
        $fault: 'client',
        $metadata: {},
        message: 'not authorized to perform sts:AssumeRole',
      }),
    );

    const attempt = stsRoleAssumer(new STSClient({ region: 'af-south-1' })).assumeRole({
      roleArn: ROLE,
      sessionName: 'relay-delivery-books',
      durationSeconds: 3600,
    });

    await expect(attempt).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('refuses an answer without a whole session, under a retryable name', async () => {
    sts.on(AssumeRoleCommand).resolves({ Credentials: undefined });

    const attempt = stsRoleAssumer(new STSClient({ region: 'af-south-1' })).assumeRole({
      roleArn: ROLE,
      sessionName: 'relay-delivery-books',
      durationSeconds: 3600,
    });

    await expect(attempt).rejects.toMatchObject({ name: 'IncompleteAssumeRoleAnswer' });
  });
});
