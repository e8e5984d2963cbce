/**
 * The first step of `npm test`: the machine packages the tests need beyond Node, checked in a
 * second rather than found missing a minute into the run. Java 17 or later runs DynamoDB Local;
 * Chromium runs the reference page's browser test. Prints the one command that installs what is
 * missing (Debian or Ubuntu) and fails; prints nothing when all is there.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { readCommandLine } from './support/cli';

readCommandLine({
  command: 'tsx scripts/check-machine.ts',
  usage: `Usage: tsx scripts/check-machine.ts

The first step of \`npm test\`: checks that Java 17 or later and Chromium are installed, and prints
the command that installs what is missing.

Options:
  --help   this text; runs nothing
`,
  options: { help: { type: 'boolean', short: 'h' } },
});

const javaMajor = (): number | undefined => {
  const run = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (run.error || run.status !== 0) return undefined;
  const version = /version "(\d+)(?:\.(\d+))?/.exec(`${run.stderr}${run.stdout}`);
  if (!version) return undefined;
  // Java 8 and older call themselves 1.x.
  return version[1] === '1' ? Number(version[2]) : Number(version[1]);
};

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const missing: { readonly what: string; readonly debianPackage: string }[] = [];
const java = javaMajor();
if (java === undefined || java < 17) {
  missing.push({
    what:
      java === undefined
        ? 'Java (for DynamoDB Local): no `java` on the PATH'
        : `Java 17 or later (for DynamoDB Local): found Java ${java}`,
    debianPackage: 'openjdk-17-jre-headless',
  });
}
const executable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
};
if (!executable(chromium))
  missing.push({
    what: `Chromium (for the reference page's browser test): no program at ${chromium} (CHROMIUM_PATH)`,
    debianPackage: 'chromium',
  });

if (missing.length > 0) {
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  process.stderr.write(
    [
      'npm test needs machine packages that are missing:',
      ...missing.map(({ what }) => `  - ${what}`),
      '',
      'Install them with:',
      `  ${sudo}apt-get update && ${sudo}apt-get install -y ${missing.map(({ debianPackage }) => debianPackage).join(' ')}`,
      '',
    ].join('\n'),
  );
  process.exit(1);
}
