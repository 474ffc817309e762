import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * cfn-lint (the CloudFormation resource schemas: property patterns, lengths, enums, required keys) over
 * synthesized templates. It is a Python tool outside npm: `.ci/run` installs it and sets
 * REQUIRE_CFN_LINT=1, so CI fails without it; elsewhere a test using it is skipped with how to install it
 * (docs/development.md#cfn-lint).
 */
export const CFN_LINT_INSTALL = 'python3 -m pip install --user cfn-lint';

/**
 * Whether `cfn-lint` is on the PATH, found without running it: `cfn-lint --version` loads all of cfn-lint
 * (about 2.5 s of CPU), and every test worker importing this file asked it.
 */
const cfnLintOnPath = (process.env.PATH ?? '').split(delimiter).some((dir) => {
  try {
    accessSync(join(dir, 'cfn-lint'), constants.X_OK);
    return true;
  } catch {
    return false;
  }
});

let version: string | undefined;
/**
 * `cfn-lint 1.x.y` (asked once per process), or undefined when it is not on the PATH. Asked only for a
 * failure's message (errorsWithVersion): `cfn-lint --version` loads all of cfn-lint again, 2.5 to 4 s of
 * CPU, more than linting a template, and the warnings every run reports do not need it.
 */
function cfnLintVersion(): string | undefined {
  if (version === undefined && cfnLintOnPath) {
    const run = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
    if (run.status === 0) version = run.stdout.trim() || run.stderr.trim();
  }
  return version;
}

export const cfnLintRequired = process.env.REQUIRE_CFN_LINT === '1';

/** Why the cfn-lint tests are skipped (a new user's `npm test` stays green), or undefined to run them. */
export function cfnLintSkipReason(): string | undefined {
  if (cfnLintOnPath || cfnLintRequired) return undefined;
  return `cfn-lint is not installed: install it with \`${CFN_LINT_INSTALL}\` to check the templates against the CloudFormation schemas (CI sets REQUIRE_CFN_LINT=1 and fails without it)`;
}

/**
 * CloudWatch's dynamic labels (`${AVG}`, `${MAX}`...: the dashboards' legends, from cdk-monitoring-constructs),
 * which CloudWatch fills in, not CloudFormation, told to cfn-lint's E1029 ("a `${var}` outside `Fn::Sub`") as
 * not variables. Why: for each such string E1029 asks whether the name is a resource or parameter by
 * matching it against every logical id as a regular expression, compiled again each time; on the largest
 * relay's dashboards that was 60 % of cfn-lint's CPU (measured 2026-12-01, cfn-lint 1.51: the scale test's
 * three templates 36.6 → 18.7 s, the same findings). E1029 still checks every other `${...}`, a
 * `${SomeResource}` outside `Fn::Sub` included (test/infra/cfn-lint.test.ts).
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/graph-dynamic-labels.html
 */
export const CLOUDWATCH_DYNAMIC_LABEL =
  '^\\$\\{(AVG|DATAPOINT_COUNT|FIRST|FIRST_LAST_RANGE|FIRST_LAST_TIME_RANGE|FIRST_TIME|FIRST_TIME_RELATIVE|LABEL|LAST|LAST_TIME|LAST_TIME_RELATIVE|MAX|MAX_TIME|MAX_TIME_RELATIVE|MIN|MIN_MAX_RANGE|MIN_MAX_TIME_RANGE|MIN_TIME|MIN_TIME_RELATIVE|SUM)\\}$';

export interface CfnLintFinding {
  readonly template: string;
  readonly rule: string;
  readonly level: string;
  readonly message: string;
  readonly path: string;
}

/**
 * Lints the templates (by name) in one cfn-lint run (its start-up dominates), every region-independent
 * rule; returns the errors and the warnings. Identical templates (the same stack synthesized by several
 * tests) are linted once, their findings reported under each name: cfn-lint's cost is per template, and a
 * template's findings depend on its content alone. Throws when cfn-lint is missing or does not answer in
 * JSON.
 *
 * Not deduplicated below the template (each distinct resource linted once, in a reduced template holding
 * what it references), though only a third of the resources are distinct: a resource's findings also
 * depend on resources it does not contain. E3019 compares the primary identifiers (AlarmName, an
 * EventInvokeConfig's FunctionName and Qualifier...) of every resource of a type, so a second
 * EventInvokeConfig for a function, added in one template, would pass: the first is in an earlier
 * template, not in the reduced one. E3502, E3505, E3705 and W3664 read the resources a queue, an event
 * source mapping or a Lambda permission references. Keying each resource on all it reads saves a quarter
 * at best, and ties this file to the rules of one cfn-lint release (CI installs the latest).
 */
export function cfnLint(templates: Record<string, unknown>): {
  errors: CfnLintFinding[];
  warnings: CfnLintFinding[];
} {
  if (!cfnLintOnPath)
    throw new Error(`cfn-lint is required (REQUIRE_CFN_LINT=1) but not installed: ${CFN_LINT_INSTALL}`);
  const dir = mkdtempSync(join(tmpdir(), 'relay-cfn-lint-'));
  try {
    /** The names of each distinct template, by the file it is linted from. */
    const namesOf = new Map<string, string[]>();
    for (const [name, template] of Object.entries(templates)) {
      const json = JSON.stringify(template, undefined, 1);
      const file = join(dir, `${createHash('sha256').update(json).digest('hex')}.json`);
      if (!namesOf.has(file)) writeFileSync(file, json);
      namesOf.set(file, [...(namesOf.get(file) ?? []), name]);
    }
    const run = spawnSync(
      'cfn-lint',
      [
        '--format',
        'json',
        '--non-zero-exit-code',
        'none',
        '--configure-rule',
        `E1029:custom_excludes=${CLOUDWATCH_DYNAMIC_LABEL}`,
        '--',
        ...namesOf.keys(),
      ],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (run.status !== 0)
      throw new Error(`cfn-lint failed (exit ${run.status}): ${run.stderr.slice(0, 2000)}`);
    const matches = JSON.parse(run.stdout || '[]') as Array<{
      Filename: string;
      Level: string;
      Message: string;
      Rule: { Id: string };
      Location?: { Path?: unknown[] };
    }>;
    const findings = matches.flatMap((m) =>
      (namesOf.get(m.Filename) ?? [m.Filename]).map((template) => ({
        template,
        rule: m.Rule.Id,
        level: m.Level,
        message: m.Message,
        path: (m.Location?.Path ?? []).join('/'),
      })),
    );
    return {
      errors: findings.filter((f) => f.level === 'Error'),
      warnings: findings.filter((f) => f.level === 'Warning'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One line per finding, for an assertion message or the test log. */
export const describeFindings = (findings: readonly CfnLintFinding[]) =>
  findings.map((f) => `${f.template}: ${f.rule} ${f.path}: ${f.message}`);

/**
 * The errors, one line each, after the version of the cfn-lint that found them when there are any: what
 * a failed `expect(errorsWithVersion(errors)).toEqual([])` shows (a new release can bring a new rule).
 */
export const errorsWithVersion = (errors: readonly CfnLintFinding[]) =>
  errors.length ? [`${cfnLintVersion()}:`, ...describeFindings(errors)] : [];
