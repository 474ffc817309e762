import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
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
