import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/**
 * The environment of a new user's shell: a PATH without this project's `node_modules/.bin` (npm
 * adds that itself, as it does for the user), HOME, and nothing else. No `DYNAMODB_ENDPOINT`, no
 * `AWS_*`, none of the settings the test run itself uses. `extra` adds what the user would type.
 */
export const userEnvironment = (extra: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  PATH: (process.env.PATH ?? '/usr/bin:/bin')
    .split(path.delimiter)
    .filter((entry) => !entry.includes(`node_modules${path.sep}.bin`))
    .join(path.delimiter),
  HOME: process.env.HOME ?? '/tmp',
  ...extra,
});

export interface UserCommand {
  readonly child: ChildProcess;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** Resolves with the first match of `pattern` in its output; rejects if it exits or `ms` pass first. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** Resolves with its exit code (or signal) once it has exited. */
  readonly exited: Promise<number | string>;
  /** Ctrl-C in the terminal: SIGINT to its whole process group. */
  interrupt(): void;
}

/** Runs `npm <args>` in the project (or a folder of it) as a user types it in a terminal: its own process group, the user's environment. */
export const runNpm = (
  args: readonly string[],
  env: Record<string, string> = userEnvironment(),
  cwd: string = projectRoot,
): UserCommand => {
  const child = spawn('npm', [...args], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return {
    child,
    output: () => output,
    exited,
    interrupt: () => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
        process.kill(-child.pid, 'SIGINT');
    },
    waitFor: (pattern, ms = 90_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (!match) return;
          done();
          resolve(match);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`Not seen within ${ms} ms: ${pattern}. Output:\n${output}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then((code) => {
          if (!listeners.has(check)) return;
          done();
          reject(new Error(`Exited (${code}) before ${pattern} was seen. Output:\n${output}`));
        });
        check();
      }),
  };
};

/** The command lines of the Java processes running DynamoDB Local on `port`. */
export const dynamoDbLocalProcesses = (port: number): string[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        return [readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')];
      } catch {
        return [];
      }
    })
    .filter((command) => command.includes('DynamoDBLocal') && command.includes(`-port ${port}`));
