import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { MobileMoneyRelay } from '../../infra';
import { checkAwsLimits, type LimitsReport } from './aws-limits';
import { cfnLint, cfnLintSkipReason, describeFindings, errorsWithVersion } from './cfn-lint';
import { exampleConfig } from './relay-synth';

/** The partner sizes a relay must deploy at: a single till up to an aggregator's hundreds. */
const SIZES = [1, 25, 100, 500] as const;
const PROVIDERS = ['momo', 'airtel', 'daraja'] as const;
const API_BASE_URLS = {
  momo: 'https://sandbox.momodeveloper.mtn.com',
  airtel: 'https://openapiuat.airtel.africa',
  daraja: 'https://sandbox.safaricom.co.ke',
};

/**
 * `n` accounts spread over the three providers, each like the example config's account of its provider,
 * with both secrets (named by the convention) and a status API.
 */
function configOf(n: number) {
  const accounts: Record<string, Record<string, unknown>> = {};
  for (let i = 0; i < n; i++) {
    const provider = PROVIDERS[i % PROVIDERS.length]!;
    const id = `till${String(i).padStart(3, '0')}`;
    accounts[provider] = {
      ...accounts[provider],
      [id]: {
        ...structuredClone(exampleConfig.accounts[provider].demo),
        ...(provider === 'daraja' ? { shortCode: String(600_000 + i) } : {}),
        callbackSecretId: `mobile-money-relay/${provider}/${id}/callback`,
        apiSecretId: `mobile-money-relay/${provider}/${id}/api`,
        api: { baseUrl: API_BASE_URLS[provider] },
      },
    };
  }
  return { ...exampleConfig, accounts };
}

type Built = { template: Record<string, any>; limits: LimitsReport };

/** Each size synthesized once (bundling off: the template is under test). */
const built = new Map<number, Built>();
beforeAll(() => {
  for (const n of SIZES) {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, `Relay${n}Accounts`, {
      env: { account: '123456789012', region: 'eu-west-1' },
    });
    new MobileMoneyRelay(stack, 'Relay', {
      config: configOf(n),
      alarmEmail: 'oncall@example.org',
      ticketEmail: 'payments-team@example.org',
    });
    const template = Template.fromStack(stack).toJSON();
    built.set(n, { template, limits: checkAwsLimits(template) });
  }
});

describe('every size deploys (1, 25, 100 and 500 accounts, each with both secrets and a status API)', () => {
  it.each(SIZES)('%i accounts: inside every AWS limit that applies at deploy', (n) => {
    // Act
    const { limits } = built.get(n)!;
    console.info(`${n} accounts: ${JSON.stringify(limits.sizes)}`);
    // Assess
    expect(limits.problems).toEqual([]);
  });

  it('grants the secrets with policies that do not grow with the accounts', () => {
    const sizes = SIZES.map((n) => built.get(n)!.limits.sizes);
    // From 25 accounts on, every provider (and so every function) is there: the policies are the same.
    expect(sizes[3]!.maxRoleInlinePolicyChars).toBe(sizes[1]!.maxRoleInlinePolicyChars);
    expect(sizes[3]!.maxManagedPolicyChars).toBe(0);
  });

  it('watches callback silence with one alarm per provider at 500 accounts, no metric per account', () => {
    // Prepare
    const resources = built.get(500)!.template.Resources as Record<string, any>;

    // Act
    const silence = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::CloudWatch::Alarm' &&
        JSON.stringify(r.Properties.Metrics ?? r.Properties.MetricName ?? '').includes('SilentProviders'),
    );

    // Assess: three providers, three alarms, each on SilentProviders{provider}, a ticket inside 1,024 characters.
    expect(silence).toHaveLength(3);
    for (const alarm of silence) {
      const stats = (alarm.Properties.Metrics ?? []).filter((m: any) => m.MetricStat);
      expect(stats).toHaveLength(1);
      expect(stats[0].MetricStat.Metric.Dimensions.map((d: any) => d.Name)).toEqual(['provider']);
      expect(JSON.stringify(alarm.Properties.AlarmActions)).toMatch(/TicketTopic/);
      expect(String(alarm.Properties.AlarmDescription).length).toBeLessThanOrEqual(1024);
      // The poller writes it only while the provider is silent: no data is no silence.
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
    }
  });

  const skip = cfnLintSkipReason();
  it.skipIf(skip !== undefined)(
    `passes cfn-lint with 0 errors at every size${skip ? ` (skipped: ${skip})` : ''}`,
    { timeout: 900_000 },
    () => {
      // Act
      const { errors, warnings } = cfnLint(
        Object.fromEntries(SIZES.map((n) => [`${n}-accounts`, built.get(n)!.template])),
      );
      // Assess (warnings are reported, not failed)
      if (warnings.length) console.info(`cfn-lint warnings:\n${describeFindings(warnings).join('\n')}`);
      expect(errorsWithVersion(errors)).toEqual([]);
    },
  );
});
