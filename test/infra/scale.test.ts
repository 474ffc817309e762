import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { MobileMoneyRelay } from '../../infra';
import { checkAwsLimits, type LimitsReport } from './aws-limits';
import { cfnLint, cfnLintSkipReason, cfnLintVersion, describeFindings } from './cfn-lint';
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

  it('still tickets for a silent account at 500 accounts, naming it in its alarm', () => {
    // Prepare
    const resources = built.get(500)!.template.Resources as Record<string, any>;
    const silence = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::CloudWatch::Alarm' &&
        (r.Properties.Metrics ?? []).some(
          (m: any) => m.MetricStat?.Metric?.MetricName === 'CallbacksReceived',
        ),
    );
    // Act: which alarm watches each account, and what it says the account adds to its value.
    const watched = new Map<string, string[]>();
    for (const alarm of silence) {
      const p = alarm.Properties;
      for (const m of p.Metrics.filter((q: any) => q.MetricStat)) {
        const dim = (name: string) => m.MetricStat.Metric.Dimensions.find((d: any) => d.Name === name).Value;
        const key = `${dim('provider')}/${dim('account')}`;
        watched.set(key, [...(watched.get(key) ?? []), p.AlarmName]);
        // The description gives the account's weight in the value: 2^(its place in the expression).
        const weight = 2 ** Number(m.Id.replace(/^g\d+m/, ''));
        expect(p.AlarmDescription, key).toContain(`${weight} ${key}`);
        expect(p.Metrics.find((q: any) => q.ReturnData !== false).Expression).toContain(
          `${weight}*(FILL(${m.Id},0)<1)`,
        );
      }
      expect(JSON.stringify(p.AlarmActions)).toMatch(/TicketTopic/);
      expect(p).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'breaching',
      });
    }
    // Assess: every account in exactly one alarm, 10 to an alarm.
    expect(watched.size).toBe(500);
    for (const [key, alarms] of watched) expect(alarms, key).toHaveLength(1);
    expect(silence).toHaveLength(Math.ceil(167 / 10) * 2 + Math.ceil(166 / 10));
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
      if (warnings.length)
        console.info(`${cfnLintVersion} warnings:\n${describeFindings(warnings).join('\n')}`);
      expect(describeFindings(errors)).toEqual([]);
    },
  );
});
