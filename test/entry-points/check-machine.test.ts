import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/as-a-user';

/** `npm test`'s first step, on machines without what the tests need. */
const check = (env: Record<string, string>) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/check-machine.ts'], {
    cwd: projectRoot,
    env,
    encoding: 'utf8',
  });

describe('the machine check that npm test starts with', () => {
  it('on a machine with only Node, fails at once with the one command that installs Java and Chromium', () => {
    const run = check({ PATH: '/nonexistent', CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('apt-get install -y openjdk-17-jre-headless chromium');
  });

  it('does not take a folder or a file that cannot run for Chromium', () => {
    for (const notAProgram of ['/usr/bin', `${projectRoot}/package.json`]) {
      const run = check({ PATH: process.env.PATH ?? '', CHROMIUM_PATH: notAProgram });
      expect(run.status, notAProgram).toBe(1);
      expect(run.stderr).toContain(`no program at ${notAProgram}`);
    }
  });

  it('passes silently where both are installed', () => {
    const run = check({ PATH: process.env.PATH ?? '' });
    expect([run.status, run.stderr]).toEqual([0, '']);
  });
});
