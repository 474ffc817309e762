import { type Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import type { Construct } from 'constructs';

/**
 * A schedule's own role (not the stack-wide one a target would create), assumable by EventBridge Scheduler
 * of this account only (confused deputy): each schedule then grants it exactly its target.
 */
export function newScheduleRole(scope: Construct, id: string, description: string): iam.Role {
  return new iam.Role(scope, id, {
    description,
    assumedBy: new iam.PrincipalWithConditions(new iam.ServicePrincipal('scheduler.amazonaws.com'), {
      StringEquals: { 'aws:SourceAccount': Stack.of(scope).account },
    }),
  });
}

/**
 * A schedule that invokes one function every `rate`, through its own role (newScheduleRole, created
 * first, so logical ids and template order stay those of `<id>Role` then `<id>`). The target's retry
 * settings are each caller's: what a lost run costs differs by schedule.
 */
export function scheduleFunction(
  scope: Construct,
  id: string,
  options: {
    readonly fn: lambda.IFunction;
    readonly rate: Duration;
    readonly description: string;
    readonly roleDescription: string;
    readonly target: Omit<schedulerTargets.ScheduleTargetBaseProps, 'role'>;
    /** Lets Scheduler start a run up to this late (spreads load). @default none: on time */
    readonly flexibleWindow?: Duration;
    /** @default true */
    readonly enabled?: boolean;
  },
): { schedule: scheduler.Schedule; role: iam.Role } {
  const role = newScheduleRole(scope, `${id}Role`, options.roleDescription);
  const schedule = new scheduler.Schedule(scope, id, {
    description: options.description,
    schedule: scheduler.ScheduleExpression.rate(options.rate),
    target: new schedulerTargets.LambdaInvoke(options.fn, { ...options.target, role }),
    timeWindow: options.flexibleWindow
      ? scheduler.TimeWindow.flexible(options.flexibleWindow)
      : scheduler.TimeWindow.off(),
    enabled: options.enabled ?? true,
  });
  return { schedule, role };
}
