import { Annotations, CfnOutput, Duration, Fn, Stack, type StackProps, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ConfigError } from '../shared/domain/errors';
import { parseCidr } from '../shared/util/ip-allowlist';
import { createAlarmTopic } from './relay/alarms';
import { WAF_SOURCE_REFUSED_HEADER } from './relay/edge';
import { providerCallbackSources } from './relay/providers';

/**
 * Requests per source IP per 5 minutes before the rate rule blocks: 2,000 (≈ 6.7 requests a second,
 * sustained for 5 minutes). One provider's callbacks come from a handful of addresses, so a busy
 * account of a provider that calls twice per payment (e.g. a validation and a confirmation) can pass
 * this from one IP: the providers' published sources (their infra declarations, `callbackSources`) are
 * always exempt; add the accounts' own allow-lists with `exemptCidrs`, or raise the limit.
 */
export const DEFAULT_EDGE_RATE_LIMIT = 2000;

/** The evaluation windows AWS WAF supports for rate-based rules. */
const EVALUATION_WINDOWS_SECONDS = [60, 120, 300, 600];

/**
 * AWS WAF's fixed quotas this web ACL could pass as providers, exempt CIDRs and enforced source ranges
 * grow (docs.aws.amazon.com/waf/latest/developerguide/limits.html): addresses in one IP set, and
 * reference statements (to IP sets and rule groups) in one web ACL. Its capacity reaches the 1,500 WCUs
 * of the base price only past the 50 references (besides the managed rule groups, a reference costs at
 * most 13 WCUs here): test/infra/edge-limits.test.ts builds the largest web ACL inside them.
 */
const WAF_IP_SET_ADDRESSES = 10_000;
const WAF_REFERENCE_STATEMENTS = 50;

export interface RelayEdgeWebAclProps {
  /** Requests per source IP per `evaluationWindow` above which the IP is blocked. @default 2,000 */
  readonly rateLimit?: number;
  /** The rate rule's window: 1, 2, 5 or 10 minutes. @default 5 minutes */
  readonly evaluationWindow?: Duration;
  /**
   * `count` only counts (metrics and sampled requests): start there and look at the
   * `RelayEdgeRatePerIp` metric before blocking. @default 'block' (answered 429)
   */
  readonly rateLimitAction?: 'block' | 'count';
  /**
   * Source addresses/CIDRs (IPv4 and IPv6) the rate rule never counts, besides the providers' declared
   * callback sources (always exempt, so the rate rule never blocks a provider): e.g. the accounts' own
   * source allow-lists. @default none
   */
  readonly exemptCidrs?: readonly string[];
  /**
   * Providers whose callbacks are refused at the edge (403) unless they come from their allowed sources:
   * a rule on the paths `/v1/<provider>/` that blocks any other source IP. The sources are
   * `providerSources[<provider>]`, else the provider's declared ones (its published
   * addresses). The relay still checks the sources itself (the account's `sourceIp.mode`). @default none
   */
  readonly enforceSourceRanges?: readonly string[];
  /** Allowed sources per provider for `enforceSourceRanges` (e.g. an account's `sourceIp.allow`). @default the declared ones */
  readonly providerSources?: Readonly<Record<string, readonly string[]>>;
  /**
   * AWS managed rule groups (Core rule set, Amazon IP reputation list) in count mode: their metrics
   * and sampled requests show what they would block, nothing is blocked (the core set's 8 KB body limit
   * and generic rules would refuse legitimate callbacks). `false` leaves them out. @default true
   */
  readonly managedRulesInCountMode?: boolean;
  /** Prefix of the CloudWatch metric names. @default 'RelayEdge' */
  readonly metricPrefix?: string;
  /**
   * The page topic (in us-east-1, like this web ACL) for the alarms on a provider's declared sources
   * being blocked. @default none: the alarms exist, nobody is notified (synth warns)
   */
  readonly alarmTopic?: sns.ITopic;
  /** Alarm name prefix. @default CloudFormation-generated names */
  readonly alarmNamePrefix?: string;
}

/** The label (under the web ACL's namespace) on requests from a provider's declared sources: `<this>:<provider>`. */
const PROVIDER_SOURCE_LABEL = 'relay:provider-source';

/**
 * A CLOUDFRONT-scope AWS WAF web ACL for the relay's CloudFront edge (`MobileMoneyRelay` prop
 * `cloudFront.webAclArn`): a rate-based rule per source IP (optionally sparing the providers' CIDRs),
 * optionally AWS managed rules in count mode, default action allow, CloudWatch metrics and sampled
 * requests on every rule. CLOUDFRONT-scope resources only exist in us-east-1: create it in a stack
 * there (`RelayEdgeWebAclStack`).
 */
export class RelayEdgeWebAcl extends Construct {
  readonly webAcl: wafv2.CfnWebACL;
  /** Pass this to the relay (`cloudFront.webAclArn`). */
  readonly webAclArn: string;
  /** One per provider with declared sources: the WAF blocked a request from them (paging when `alarmTopic`). */
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: RelayEdgeWebAclProps = {}) {
    super(scope, id);
    const region = Stack.of(this).region;
    const problems: string[] = [];
    if (!Token.isUnresolved(region) && region !== 'us-east-1')
      problems.push(`region: CLOUDFRONT-scope web ACLs exist only in us-east-1 (this stack: ${region})`);
    const rateLimit = props.rateLimit ?? DEFAULT_EDGE_RATE_LIMIT;
    if (!Number.isInteger(rateLimit) || rateLimit < 10 || rateLimit > 2_000_000_000)
      problems.push(`rateLimit: a whole number from 10 to 2,000,000,000 (got ${rateLimit})`);
    const windowSeconds = (props.evaluationWindow ?? Duration.minutes(5)).toSeconds();
    if (!EVALUATION_WINDOWS_SECONDS.includes(windowSeconds))
      problems.push(`evaluationWindow: 1, 2, 5 or 10 minutes (got ${windowSeconds} s)`);
    const exempt = { ipv4: [] as string[], ipv6: [] as string[] };
    const declared = providerCallbackSources();
    const allowed: Record<string, readonly string[]> = { ...declared, ...props.providerSources };
    const split = (key: string, texts: readonly string[]) => {
      const out = { ipv4: [] as string[], ipv6: [] as string[] };
      for (const text of texts) {
        const cidr = parseCidr(text);
        if (!cidr) problems.push(`${key}: "${text}" is not an IPv4/IPv6 address or CIDR`);
        else out[cidr.family].push(`${cidr.network}/${cidr.prefix}`);
      }
      return out;
    };
    // A provider's sources are never rate-limited: all of its callbacks come from a few addresses.
    for (const [key, texts] of [
      ['exemptCidrs', props.exemptCidrs ?? []],
      ...Object.entries(allowed).map(([provider, texts]) => [`providerSources.${provider}`, texts] as const),
    ] as const) {
      const cidrs = split(key, texts);
      exempt.ipv4.push(...cidrs.ipv4);
      exempt.ipv6.push(...cidrs.ipv6);
    }
    for (const provider of props.enforceSourceRanges ?? []) {
      if (!/^[a-z][a-z0-9-]*$/.test(provider) || !allowed[provider]?.length)
        problems.push(
          `enforceSourceRanges: "${provider}" has no sources (declare them in its infra.ts or give providerSources.${provider})`,
        );
    }
    if (problems.length) throw new ConfigError(`Invalid RelayEdgeWebAcl props:\n${problems.join('\n')}`);
    const prefix = props.metricPrefix ?? 'RelayEdge';
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName,
    });
    /** An IP set of these addresses (once each) and the statement that references it. */
    const ipSet = (id: string, family: 'ipv4' | 'ipv6', addresses: string[], description: string) => {
      const unique = [...new Set(addresses)];
      if (unique.length > WAF_IP_SET_ADDRESSES)
        throw new ConfigError(
          `Invalid RelayEdgeWebAcl props:\nIP set ${id}: ${unique.length} ${family} addresses, more than the ${WAF_IP_SET_ADDRESSES.toLocaleString('en')} an AWS WAF IP set holds (a fixed quota): merge them into wider CIDRs`,
        );
      const set = new wafv2.CfnIPSet(this, id, {
        scope: 'CLOUDFRONT',
        ipAddressVersion: family === 'ipv4' ? 'IPV4' : 'IPV6',
        addresses: unique,
        description,
      });
      return { ipSetReferenceStatement: { arn: set.attrArn } } as wafv2.CfnWebACL.StatementProperty;
    };

    // Providers' sources are not rate-limited: all of a provider's callbacks come from a few IPs.
    const exemptions: wafv2.CfnWebACL.StatementProperty[] = [];
    for (const family of ['ipv4', 'ipv6'] as const) {
      if (!exempt[family].length) continue;
      exemptions.push(
        ipSet(
          family === 'ipv4' ? 'ExemptIpv4' : 'ExemptIpv6',
          family,
          exempt[family],
          'Provider callback sources the relay edge rate rule does not count',
        ),
      );
    }
    const exempted: wafv2.CfnWebACL.StatementProperty | undefined =
      exemptions.length === 0
        ? undefined
        : {
            notStatement: {
              statement:
                exemptions.length === 1 ? exemptions[0]! : { orStatement: { statements: exemptions } },
            },
          };

    // The allow-list at the edge: callbacks on a provider's paths from anywhere else are refused here.
    const enforced: wafv2.CfnWebACL.RuleProperty[] = (props.enforceSourceRanges ?? []).map((provider) => {
      const cidrs = split(`providerSources.${provider}`, allowed[provider] ?? []);
      const sets = (['ipv4', 'ipv6'] as const)
        .filter((family) => cidrs[family].length)
        .map((family) =>
          ipSet(
            `${provider}Sources${family === 'ipv4' ? 'Ipv4' : 'Ipv6'}`,
            family,
            cidrs[family],
            // AWS::WAFv2::IPSet's schema allows letters, digits, spaces and + = : # @ / - , . only.
            `Where ${provider} callbacks may come from, the relay edge refuses the rest on its paths`,
          ),
        );
      return {
        name: `${provider}SourcesOnly`,
        priority: 0,
        statement: {
          andStatement: {
            statements: [
              {
                byteMatchStatement: {
                  fieldToMatch: { uriPath: {} },
                  positionalConstraint: 'STARTS_WITH',
                  searchString: `/v1/${provider}/`,
                  textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
                },
              },
              {
                notStatement: {
                  statement: sets.length === 1 ? sets[0]! : { orStatement: { statements: sets } },
                },
              },
            ],
          },
        },
        // The header (x-amzn-waf-relay-edge) tells the synthetic check this refusal is the WAF's, by design.
        action: {
          block: {
            customResponse: {
              responseCode: 403,
              responseHeaders: [
                { name: WAF_SOURCE_REFUSED_HEADER.name, value: WAF_SOURCE_REFUSED_HEADER.value },
              ],
            },
          },
        },
        visibilityConfig: visibility(`${prefix}${provider.replace(/[^A-Za-z0-9]/g, '')}SourcesOnly`),
      };
    });

    // First, a count rule per provider that labels requests from its declared sources: a later rule that
    // blocks one of them shows in the label's BlockedRequests metric (a genuine provider refused).
    const labelled = Object.entries(declared)
      .filter(([, texts]) => texts.length)
      .map(([provider, texts]) => {
        const cidrs = split(`providerSources.${provider}`, texts);
        const sets = (['ipv4', 'ipv6'] as const)
          .filter((family) => cidrs[family].length)
          .map((family) =>
            ipSet(
              `${provider}Declared${family === 'ipv4' ? 'Ipv4' : 'Ipv6'}`,
              family,
              cidrs[family],
              `The sources ${provider} declares for its callbacks, labelled by the relay edge`,
            ),
          );
        return { provider, sets };
      });
    const rules: wafv2.CfnWebACL.RuleProperty[] = [
      ...labelled.map(({ provider, sets }) => ({
        name: `${provider}SourcesLabel`,
        priority: 0,
        statement: sets.length === 1 ? sets[0]! : { orStatement: { statements: sets } },
        action: { count: {} },
        ruleLabels: [{ name: `${PROVIDER_SOURCE_LABEL}:${provider}` }],
        visibilityConfig: visibility(`${prefix}${provider.replace(/[^A-Za-z0-9]/g, '')}Sources`),
      })),
      {
        name: 'RatePerSourceIp',
        priority: 0,
        statement: {
          rateBasedStatement: {
            limit: rateLimit,
            aggregateKeyType: 'IP',
            evaluationWindowSec: windowSeconds,
            ...(exempted ? { scopeDownStatement: exempted } : {}),
          },
        },
        action:
          props.rateLimitAction === 'count'
            ? { count: {} }
            : { block: { customResponse: { responseCode: 429 } } },
        visibilityConfig: visibility(`${prefix}RatePerIp`),
      },
      ...enforced,
    ];
    if (props.managedRulesInCountMode ?? true) {
      for (const name of ['AWSManagedRulesAmazonIpReputationList', 'AWSManagedRulesCommonRuleSet'] as const) {
        rules.push({
          name,
          priority: 0,
          statement: { managedRuleGroupStatement: { vendorName: 'AWS', name } },
          overrideAction: { count: {} },
          visibilityConfig: visibility(`${prefix}${name.replace('AWSManagedRules', '')}`),
        });
      }
    }
    // Each IP set and rule group a rule references is a reference statement: deploying past 50 fails.
    const references = (
      JSON.stringify(rules).match(/"(ipSetReferenceStatement|managedRuleGroupStatement)"/g) ?? []
    ).length;
    if (references > WAF_REFERENCE_STATEMENTS)
      throw new ConfigError(
        `Invalid RelayEdgeWebAcl props:\nenforceSourceRanges: the web ACL would reference ${references} IP sets and rule groups, more than the ${WAF_REFERENCE_STATEMENTS} reference statements AWS WAF allows in one web ACL (a fixed quota): each enforced provider adds one per address family of its sources; enforce fewer providers or give them fewer address families`,
      );
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      description:
        'Mobile-money relay CloudFront edge: rate limit per source IP, provider sources exempt, managed rules counted',
      // Evaluated in this order: the labels, the rate rule, the source-range rules, the managed rules.
      rules: rules.map((rule, i) => ({ ...rule, priority: i })),
      visibilityConfig: visibility(`${prefix}WebAcl`),
    });
    this.webAclArn = this.webAcl.attrArn;

    // A genuine provider refused at the edge: a blocked request carrying a provider-source label. AWS WAF
    // publishes CLOUDFRONT-scope metrics in us-east-1 (this stack's region), so the alarm lives here.
    const webAclName = Fn.select(0, Fn.split('|', this.webAcl.ref));
    this.alarms = labelled.map(({ provider }) => {
      const alarm = new cloudwatch.Alarm(this, `${provider}SourcesBlocked`, {
        ...(props.alarmNamePrefix
          ? { alarmName: `${props.alarmNamePrefix}-Edge-${provider}SourcesBlocked` }
          : {}),
        metric: new cloudwatch.Metric({
          namespace: 'AWS/WAFV2',
          metricName: 'BlockedRequests',
          dimensionsMap: {
            WebACL: webAclName,
            LabelNamespace: Fn.join('', [this.webAcl.attrLabelNamespace, PROVIDER_SOURCE_LABEL]),
            Label: provider,
          },
          statistic: 'Sum',
          period: Duration.minutes(5),
        }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `The relay edge WAF blocked a request from one of ${provider}'s declared callback sources: a genuine ${provider} callback was refused (a rule or a rate limit too tight). Look at the web ACL's sampled requests and the rule that blocked it.`,
      });
      if (props.alarmTopic) {
        alarm.addAlarmAction(new SnsAction(props.alarmTopic));
        alarm.addOkAction(new SnsAction(props.alarmTopic));
      }
      return alarm;
    });
    if (this.alarms.length && !props.alarmTopic)
      Annotations.of(this).addWarningV2(
        'mobile-money-relay:edgeAlarmTopic',
        'RelayEdgeWebAcl without alarmTopic: the alarms on blocked provider sources notify nobody. Pass a page topic in us-east-1 (docs/deploy.md, "The public edge").',
      );
  }
}

export interface RelayEdgeWebAclStackProps extends StackProps {
  readonly webAcl?: RelayEdgeWebAclProps;
  /**
   * Subscribed to a page topic created in this stack for the blocked-provider-source alarms: CloudWatch
   * alarms notify topics of their own region only, so the relay's page topic (in the relay's region)
   * cannot serve a us-east-1 web ACL. Ignored when `webAcl.alarmTopic` is given. @default none (synth warns)
   */
  readonly alarmEmail?: string;
}

/**
 * The web ACL in its own stack, always in us-east-1 (`env.account` may stay unset). Deploy it first,
 * then pass its `WebAclArn` output to the relay (RELAY_WEB_ACL_ARN, docs/deploy.md).
 */
export class RelayEdgeWebAclStack extends Stack {
  readonly edge: RelayEdgeWebAcl;

  constructor(scope: Construct, id: string, props: RelayEdgeWebAclStackProps = {}) {
    if (props.env?.region && props.env.region !== 'us-east-1') {
      throw new ConfigError(
        `RelayEdgeWebAclStack: CLOUDFRONT-scope web ACLs exist only in us-east-1 (env.region: ${props.env.region})`,
      );
    }
    super(scope, id, { ...props, env: { ...props.env, region: 'us-east-1' } });
    let alarmTopic = props.webAcl?.alarmTopic;
    if (!alarmTopic && props.alarmEmail) {
      const topic = createAlarmTopic(
        this,
        'EdgePageTopic',
        'Mobile-money relay edge: page (needs a person now)',
      );
      topic.addSubscription(new EmailSubscription(props.alarmEmail));
      alarmTopic = topic;
    }
    this.edge = new RelayEdgeWebAcl(this, 'EdgeWebAcl', { ...props.webAcl, alarmTopic });
    new CfnOutput(this, 'WebAclArn', {
      description: 'Pass to the relay: RELAY_WEB_ACL_ARN (construct prop cloudFront.webAclArn)',
      value: this.edge.webAclArn,
    });
  }
}
