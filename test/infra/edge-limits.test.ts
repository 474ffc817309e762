import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { type RelayEdgeWebAclProps, RelayEdgeWebAclStack } from '../../infra/edge-web-acl';
import { providerCallbackSources } from '../../infra/relay/providers';
import { checkAwsLimits } from './aws-limits';

/** The web ACL stack with these props, its template's measured sizes and problems. */
function edgeLimits(webAcl: RelayEdgeWebAclProps) {
  const stack = new RelayEdgeWebAclStack(new App(), 'EdgeWebAcl', {
    webAcl,
    alarmEmail: 'oncall@example.org',
  });
  return checkAwsLimits(Template.fromStack(stack).toJSON());
}

/** Enforced source ranges for `n` names, each with an IPv4 CIDR (and an IPv6 one when `dual`). */
function enforced(n: number, dual: boolean): RelayEdgeWebAclProps {
  const names = Array.from({ length: n }, (_, i) => `p${String(i).padStart(2, '0')}`);
  return {
    enforceSourceRanges: names,
    providerSources: Object.fromEntries(
      names.map((name, i) => [name, [`198.51.${i}.0/24`, ...(dual ? [`2001:db8:${i}::/48`] : [])]]),
    ),
  };
}

describe("the edge web ACL inside AWS WAF's limits (capacity, references, IP sets)", () => {
  it('uses 730 WCUs by default: the two managed rule groups 725, the rate rule 3, the Daraja label 2', () => {
    const { sizes, problems } = edgeLimits({});
    console.info(`default web ACL: ${sizes.maxWebAclWcus} WCUs, ${sizes.maxWafReferences} references`);
    expect(problems).toEqual([]);
    expect(sizes.maxWebAclWcus).toBe(730);
  });

  it('stays inside with every option on: every provider enforced, both address families everywhere', () => {
    // Prepare: MoMo and Airtel publish no sources, so the accounts' own are given (as providerSources).
    const providers = ['momo', 'airtel', ...Object.keys(providerCallbackSources())];
    const { sizes, problems } = edgeLimits({
      exemptCidrs: ['196.201.214.200/32', '2001:db8::/32'],
      enforceSourceRanges: providers,
      providerSources: Object.fromEntries(
        providers.map((p, i) => [p, [`198.51.${i}.0/24`, `2001:db8:${i}::/48`]]),
      ),
      rateLimitAction: 'count',
    });
    console.info(`every option: ${sizes.maxWebAclWcus} WCUs, ${sizes.maxWafReferences} references`);
    expect(problems).toEqual([]);
    expect(sizes.maxWebAclWcus).toBeLessThan(800);
  });

  it('reaches 50 references before 1,500 WCUs, and refuses the 51st at synth, naming the quota', () => {
    // 46 enforced names with one address family each (13 WCUs a reference, the dearest) plus the exempt
    // and labelled Daraja sets and the two managed groups: 50 references, the most AWS WAF takes.
    const largest = edgeLimits(enforced(46, false));
    console.info(
      `largest web ACL: ${largest.sizes.maxWebAclWcus} WCUs, ${largest.sizes.maxWafReferences} references`,
    );
    expect(largest.problems).toEqual([]);
    expect(largest.sizes.maxWafReferences).toBe(50);
    expect(largest.sizes.maxWebAclWcus).toBeLessThan(1_500);

    expect(() => edgeLimits(enforced(47, false))).toThrow(
      /would reference 51 IP sets and rule groups, more than the 50 reference statements AWS WAF allows/,
    );
    expect(() => edgeLimits(enforced(24, true))).toThrow(/would reference 53 /);
  });

  it('refuses an IP set of more than 10,000 addresses at synth, naming the quota', () => {
    const cidrs = (n: number) =>
      Array.from({ length: n }, (_, i) => `10.${Math.floor(i / 256)}.${i % 256}.0/24`);
    // The exempt set also holds Daraja's declared sources.
    const declared = new Set(Object.values(providerCallbackSources()).flat()).size;
    expect(() => edgeLimits({ exemptCidrs: cidrs(10_000 - declared) })).not.toThrow();
    expect(() => edgeLimits({ exemptCidrs: cidrs(10_001 - declared) })).toThrow(
      /IP set ExemptIpv4: 10001 ipv4 addresses, more than the 10,000 an AWS WAF IP set holds/,
    );
  });
});
