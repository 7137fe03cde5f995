// `npm run user` as a child process, on both engines: add (password on standard input, --admin,
// --email), list, passwd and remove change the embedded identity provider's users, which a gateway
// on the same data directory and database then signs in with `/token`, and unlock lifts the lock
// that failed passwords put on a username there; mistakes exit 1 saying why.
// The first call of each engine goes through npm (the script's wiring); the others run the script's
// command itself (`node src/cli/user.ts`), as npm would, without npm's own start-up each time.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { basic } from '../support/identity.ts';
import { engineDatabase, engines, skipWithout } from '../support/postgres.ts';

const projectDir = path.resolve(import.meta.dirname, '../..');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

for (const engine of engines) {
  describe(`npm run user (${engine})`, { skip: skipWithout(engine) }, () => {
    let dataDir: string;
    let databaseEnv: Record<string, string>;
    let drop: () => Promise<void>;
    let running: RunningGateway;

    function userCli(
      args: string[],
      input = '',
      via: 'npm run' | 'node' = 'node',
    ): Promise<CliResult> {
      const env = {
        ...process.env,
        GATEWAY_DATA_DIR: dataDir,
        DATABASE_URL: '',
        AUTH_JWKS_URL: '',
        AUTH_PUBLIC_KEYS: '',
        AUTH_TOKEN_URL: '',
        LOG_LEVEL: 'silent',
        ...databaseEnv,
      };
      return new Promise((resolve) => {
        const [command, commandArgs] =
          via === 'npm run'
            ? ['npm', ['run', '-s', 'user', '--', ...args]]
            : [process.execPath, ['src/cli/user.ts', ...args]];
        const child = execFile(
          command,
          commandArgs,
          { cwd: projectDir, env },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
        child.stdin!.end(input);
      });
    }

    const tokenStatus = async (username: string, password: string) =>
      (await fetch(`${running.url}/token`, { headers: basic(username, password) })).status;

    before(async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'user-cli-'));
      const database = await engineDatabase(engine);
      databaseEnv = database.env;
      drop = database.drop;
      running = await startGateway({
        ...noRateLimits,
        ...databaseEnv,
        GATEWAY_DATA_DIR: dataDir,
        EMBEDDED_BACKENDS: 'none',
        SIGNIN_MAX_FAILURES: '2',
      });
    });

    after(async () => {
      await running?.close();
      await drop?.();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('add, list, passwd, remove', async () => {
      const added = await userCli(
        ['add', 'dana', '--admin', '--email', 'dana@example.org'],
        'first-password\n',
        'npm run',
      );
      assert.equal(added.code, 0, added.stderr);
      assert.match(added.stdout, /added dana \(administrator\)/);
      assert.equal((await userCli(['add', 'erin'], 'erin-password\n')).code, 0);

      const listed = await userCli(['list']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(
        listed.stdout
          .trim()
          .split('\n')
          .map((line) => line.split('\t')),
        [
          ['dana', 'dana@example.org', 'dana', 'admin'],
          ['erin', 'erin@localhost', 'erin'],
        ],
      );
      assert.equal(await tokenStatus('dana', 'first-password'), 200);

      const changed = await userCli(['passwd', 'dana'], 'second-password\n');
      assert.equal(changed.code, 0, changed.stderr);
      assert.equal(await tokenStatus('dana', 'first-password'), 401);
      assert.equal(await tokenStatus('dana', 'second-password'), 200);

      const removed = await userCli(['remove', 'erin']);
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal(await tokenStatus('erin', 'erin-password'), 401);
      assert.doesNotMatch((await userCli(['list'])).stdout, /erin/);
    });

    test('unlock lifts the lock of failed passwords on a username', async () => {
      assert.equal(await tokenStatus('dana', 'wrong-password'), 401);
      assert.equal(await tokenStatus('dana', 'wrong-password'), 401);
      assert.equal(await tokenStatus('dana', 'second-password'), 429);
      const unlocked = await userCli(['unlock', 'dana']);
      assert.equal(unlocked.code, 0, unlocked.stderr);
      assert.match(unlocked.stdout, /lifted the sign-in lock of dana/);
      assert.equal(await tokenStatus('dana', 'second-password'), 200);
    });

    // The reasons do not depend on the engine: checked once.
    test(
      'mistakes exit 1 with a reason',
      { skip: engine !== 'sqlite' && 'checked on sqlite' },
      async () => {
        const cases: Array<[string[], string, RegExp]> = [
          [['add', 'dana'], 'another-password\n', /already exists/],
          [['add', 'Bad Name'], 'a-password-ok\n', /is not a username/],
          [['add', 'fred'], 'short\n', /at least 8 characters/],
          [['passwd', 'nobody'], 'a-password-ok\n', /no user nobody/],
          [['frobnicate'], '', /usage: npm run user/],
          [['passwd', 'dana', '--help'], '', /Unknown option '--help'[\s\S]*usage: npm run user/],
        ];
        for (const [args, input, reason] of cases) {
          const result = await userCli(args, input);
          assert.equal(result.code, 1, `${args.join(' ')} fails`);
          assert.match(result.stderr, reason, args.join(' '));
          assert.doesNotMatch(result.stderr, /^\s+at /m, `${args.join(' ')}: no stack trace`);
        }
      },
    );
  });
}
