import { beforeAll, describe, expect, it } from 'vitest';
import { type CfnLintFinding, cfnLint, cfnLintSkipReason } from './cfn-lint';

/**
 * The cfn-lint helper itself: what it tells cfn-lint must not hide a real error. Its E1029 setting skips
 * CloudWatch's dynamic labels only (cfn-lint.ts, CLOUDWATCH_DYNAMIC_LABEL): a `${...}` naming a resource
 * outside `Fn::Sub`, which CloudFormation would deploy as the literal text, is still an error.
 */
const skip = cfnLintSkipReason();

/** A queue, and a dashboard whose body names `name` inside a Fn::Join, not a Fn::Sub. */
const templateNaming = (name: string, queueId = 'JobsQueue1A2B3C4D') => ({
  Resources: {
    [queueId]: { Type: 'AWS::SQS::Queue' },
    Dashboard: {
      Type: 'AWS::CloudWatch::Dashboard',
      Properties: {
        DashboardBody: {
          'Fn::Join': ['', ['{"widgets":[{"type":"text","properties":{"markdown":"', `${name}`, '"}}]}']],
        },
      },
    },
  },
});

describe.skipIf(skip !== undefined)(`cfnLint${skip ? ` (skipped: ${skip})` : ''}`, () => {
  // One cfn-lint run for both (its start-up is most of a small template's cost).
  let errors: CfnLintFinding[];
  beforeAll(() => {
    ({ errors } = cfnLint({
      probe: templateNaming('queue ${JobsQueue1A2B3C4D}'),
      // A resource whose logical id is a dynamic label's name (CDK's ids carry a hash, so this only
      // happens by hand): without the setting, E1029 reports it like the probe.
      labels: templateNaming('avg: ${AVG}, max: ${MAX}', 'AVG'),
    }));
  });

  it('still reports a resource named in ${…} outside Fn::Sub (E1029)', () => {
    // Assess
    expect(errors.filter((e) => e.template === 'probe').map((e) => e.rule)).toContain('E1029');
  });

  it("reads CloudWatch's dynamic labels as labels, not variables: the setting reaches cfn-lint", () => {
    // Assess
    expect(errors.filter((e) => e.template === 'labels' && e.rule === 'E1029')).toEqual([]);
  });
});
