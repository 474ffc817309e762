import { type Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ACK_BUDGETS } from '../../shared/app/buffer/ingress-buffer';
import { QUARANTINE_WRITE_BUDGET_MS } from '../../shared/app/callbacks/quarantine';
import { exampleConfig, ofType, type Resource, synthRelay } from './relay-synth';

/**
 * The callback function's bulkhead, read from the synthesized template alone: every route that reaches
 * the callback function (each provider's route and `$default`), its throttle (route settings, else the
 * stage default), and how long one of its requests can hold an execution on the degraded path (the
 * provider's ack budget, `$default`'s quarantine write budget). API Gateway admits at most
 * `burst + rate × t` requests in any `t` seconds, so each route needs `ceil(rate × t) + burst` executions.
 */
function bulkheadOf(
  resources: Record<string, Resource>,
  ackMsOf: (provider: string) => number = (provider) => DEFAULT_ACK_BUDGETS[provider]!.ackMs,
) {
  const [callbackId, callback] = ofType(resources, 'AWS::Lambda::Function').find(
    ([, r]) => r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === 'relay-callback',
  )!;
  const [, stage] = ofType(resources, 'AWS::ApiGatewayV2::Stage')[0]!;
  const routes = ofType(resources, 'AWS::ApiGatewayV2::Route').filter(([, route]) => {
    const integrationId = route.Properties.Target?.['Fn::Join']?.[1]?.[1]?.Ref as string | undefined;
    const uri = JSON.stringify(resources[integrationId ?? '']?.Properties.IntegrationUri ?? '');
    return uri.includes(`"${callbackId}"`);
  });
  const needs = routes.map(([, route]) => {
    const key = route.Properties.RouteKey as string;
    const settings = stage.Properties.RouteSettings?.[key] ?? stage.Properties.DefaultRouteSettings;
    const provider = /^ANY \/v1\/([^/]+)\/\{proxy\+\}$/.exec(key)?.[1];
    const degradedMs = provider ? ackMsOf(provider) : QUARANTINE_WRITE_BUDGET_MS;
    return {
      key,
      need: Math.ceil((settings.ThrottlingRateLimit * degradedMs) / 1000) + settings.ThrottlingBurstLimit,
    };
  });
  return { reserved: callback.Properties.ReservedConcurrentExecutions as number, needs };
}

const infos = (annotations: Annotations) =>
  annotations.findInfo('*', Match.stringLikeRegexp('Callback bulkhead')).map((m) => String(m.entry.data));

describe('the callback function’s bulkhead', () => {
  const plain = synthRelay('Bulkhead');

  it('reserves for every route that reaches the callback function, the catch-all included, each on its own degraded budget', () => {
    // Act
    const { reserved, needs } = bulkheadOf(plain.resources);

    // Assess: the three provider routes and $default, and Daraja held for its 5 s, not MoMo's 1.8 s
    expect(needs.map((n) => n.key).sort()).toEqual([
      '$default',
      'ANY /v1/airtel/{proxy+}',
      'ANY /v1/daraja/{proxy+}',
      'ANY /v1/momo/{proxy+}',
    ]);
    expect(needs.find((n) => n.key === 'ANY /v1/daraja/{proxy+}')!.need).toBe(20 * 5 + 20);
    expect(reserved).toBe(needs.reduce((sum, n) => sum + n.need, 0));
    expect(reserved).toBe(252);
  });

  it('prints each share’s arithmetic and the total at synth', () => {
    // Act
    const printed = infos(plain.annotations);

    // Assess
    expect(printed).toEqual([
      'Callback bulkhead, momo: 20 rps × 1.8 s + burst 20 = 56',
      'Callback bulkhead, airtel: 20 rps × 1.8 s + burst 20 = 56',
      'Callback bulkhead, daraja: 20 rps × 5 s + burst 20 = 120',
      'Callback bulkhead, $default: 10 rps × 1 s + burst 10 = 20',
      'Callback bulkhead: 56 + 56 + 120 + 20 = 252 reserved executions',
    ]);
  });

  it('grows with a provider’s ack budget raised in the config', () => {
    // Prepare
    const config = { ...exampleConfig, ackBudgets: { daraja: { storeMs: 5000, ackMs: 7000 } } };

    // Act
    const slower = synthRelay('BulkheadSlowDaraja', () => ({}), config);

    // Assess
    const { reserved, needs } = bulkheadOf(slower.resources, (provider) =>
      provider === 'daraja' ? 7000 : DEFAULT_ACK_BUDGETS[provider]!.ackMs,
    );
    expect(needs.find((n) => n.key === 'ANY /v1/daraja/{proxy+}')!.need).toBe(20 * 7 + 20);
    expect(reserved).toBe(needs.reduce((sum, n) => sum + n.need, 0));
  });

  it('counts the catch-all’s throttle: a generous $default takes its own executions, not the providers’', () => {
    // Act
    const generous = synthRelay('BulkheadGenerousDefault', () => ({
      throttle: { rateLimit: 100, burstLimit: 200 },
      providerThrottles: { daraja: { rateLimit: 40, burstLimit: 40 } },
    }));

    // Assess
    const { reserved, needs } = bulkheadOf(generous.resources);
    expect(needs.find((n) => n.key === '$default')!.need).toBe(300);
    expect(needs.find((n) => n.key === 'ANY /v1/daraja/{proxy+}')!.need).toBe(240);
    expect(reserved).toBe(56 + 56 + 240 + 300);
  });

  it('sizes only the routes that exist: providers with a configured account', () => {
    // Prepare
    const config = { ...exampleConfig, accounts: { momo: exampleConfig.accounts.momo } };

    // Act
    const momoOnly = synthRelay('BulkheadMomoOnly', () => ({}), config);

    // Assess
    const { reserved, needs } = bulkheadOf(momoOnly.resources);
    expect(needs.map((n) => n.key).sort()).toEqual(['$default', 'ANY /v1/momo/{proxy+}']);
    expect(reserved).toBe(56 + 20);
  });

  // The callback below its bulkhead; with the poller's 850 (and C2B validation's 38), 988 reserved.
  const small = synthRelay(
    'BulkheadSmall',
    () => ({ reservedConcurrency: { callback: 100, poller: 850 } }),
    exampleConfig,
    undefined,
    // The account quota synth warns about (asserted below); the template itself deploys with a raised quota.
    { overLimits: /^reserved concurrency of the stack/ },
  );

  it('warns when reservedConcurrency.callback is set below the bulkhead, and keeps the value given', () => {
    // Assess
    expect(bulkheadOf(small.resources).reserved).toBe(100);
    const warnings = small.annotations
      .findWarning('*', Match.stringLikeRegexp('below the bulkhead'))
      .map((m) => String(m.entry.data));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      'reservedConcurrency.callback: 100 is below the bulkhead of the route throttles (252)',
    );
    expect(plain.annotations.findWarning('*', Match.stringLikeRegexp('below the bulkhead'))).toHaveLength(0);
  });

  it("warns when the functions' reservations together pass Lambda's default quota (900 of 1,000 reservable)", () => {
    const warnings = (annotations: Annotations) =>
      annotations
        .findWarning('*', Match.stringLikeRegexp('reserve \\d+ executions'))
        .map((m) => String(m.entry.data));
    expect(warnings(small.annotations)).toEqual([
      expect.stringContaining(
        "The relay's functions reserve 988 executions: Lambda keeps 100 of the account's concurrency unreserved, so the deploy needs a concurrency quota of at least 1088",
      ),
    ]);
    // The defaults reserve 290.
    expect(warnings(plain.annotations)).toEqual([]);
  });
});
