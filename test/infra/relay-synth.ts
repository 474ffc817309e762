import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Aspects, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PROJECT_ROOT } from '../../infra/bundling';
import { MobileMoneyRelay, type MobileMoneyRelayProps } from '../../infra';
import { checkAwsLimits } from './aws-limits';

export const exampleConfig = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'infra/example-config.json'), 'utf8'),
);

export type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

/** One relay in a fresh stack, synthesized without bundling (the template is under test), cdk-nag on. */
export function synthRelay(
  name: string,
  relayProps: (stack: Stack) => Partial<MobileMoneyRelayProps> = () => ({}),
  config: unknown = exampleConfig,
  extend: (relay: MobileMoneyRelay, stack: Stack) => void = () => {},
  limits: LimitsOptions = {},
) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, name, { env: { account: '123456789012', region: 'eu-west-1' } });
  const relay = new MobileMoneyRelay(stack, 'Relay', {
    config,
    alarmEmail: 'oncall@example.org',
    ticketEmail: 'payments-team@example.org',
    ...relayProps(stack),
  });
  extend(relay, stack);
  Aspects.of(stack).add(new AwsSolutionsChecks({ verbose: true }));
  const { annotations, template } = synthOnce(stack, limits);
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const nagErrors = annotations
    .findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))
    .map((m) => `${m.id}: ${String(m.entry.data).split('\n')[0]}`);
  return { app, stack, relay, template, annotations, resources, nagErrors };
}

export interface LimitsOptions {
  /**
   * Problems a test means to provoke: only an adjustable account quota the construct warns about (the
   * stack's reserved concurrency past Lambda's default), never a limit CloudFormation refuses.
   */
  readonly overLimits?: RegExp;
}

/**
 * The stack's template and its annotations (cdk-nag's findings, the relay's warnings) from ONE synth of its
 * app: Annotations.fromStack always synthesizes the app again (force), aspects and cdk-nag included, while
 * Template.fromStack reuses the app's last synth. Annotations first, so the template reads that same
 * synth. Only for a stack nothing is added to afterwards.
 *
 * Every template synthesized here is checked against AWS's deploy-time limits (aws-limits.ts): a test
 * whose template CloudFormation, IAM, Lambda, EventBridge or CloudWatch would refuse fails here, naming
 * the limit, whatever the test itself asserts.
 */
export function synthOnce(stack: Stack, { overLimits }: LimitsOptions = {}) {
  const annotations = Annotations.fromStack(stack);
  const template = Template.fromStack(stack);
  const problems = checkAwsLimits(template.toJSON()).problems.filter((p) => !overLimits?.test(p));
  if (problems.length)
    throw new Error(`${stack.stackName}: past AWS's deploy-time limits:\n- ${problems.join('\n- ')}`);
  return { annotations, template, resources: template.toJSON().Resources as Record<string, any> };
}

/**
 * The example config's relay with the default props, synthesized once per worker and shared by every file
 * that only reads it (test files of a worker share its module cache: vitest.config.ts). A file that adds
 * to the stack, or needs other props or another stack name, synthesizes its own with synthRelay.
 */
export const SHARED_STACK = 'SharedRelay';
let shared: ReturnType<typeof synthRelay> | undefined;
export function sharedRelay(): Readonly<ReturnType<typeof synthRelay>> {
  return (shared ??= synthRelay(SHARED_STACK));
}

/** Logical ids and resources of one type. */
export const ofType = (resources: Record<string, Resource>, type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type);
