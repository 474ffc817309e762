/**
 * `npm run ledger:day` names the person who closes the days (every manual action does): `--by`, else the
 * login name; a container user with no passwd entry still gets a name instead of a crash mid-run.
 */
import { describe, expect, it } from 'vitest';
import { loginName } from '../../../scripts/cli';

describe('the closer of npm run ledger:day without --by', () => {
  it("is the environment's login name when it has one", () => {
    // Act and assess
    expect(loginName({ USER: 'amos.kiprop' })).toBe('amos.kiprop');
    expect(loginName({ USER: ' ', LOGNAME: 'jane' })).toBe('jane');
  });

  it('is a name, never an exception, when the environment names nobody', () => {
    // Act
    const name = loginName({});
    // Assess
    expect(name.trim().length).toBeGreaterThan(0);
  });
});
