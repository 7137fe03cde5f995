// `npm run user -- <command>`: the embedded identity provider's users (docs/authentication.md).
//   add <name> [--admin] [--email a@b.org] [--first-name A] [--last-name B]
//   passwd <name>      remove <name>      list
//   unlock <name>      (lifts a sign-in lock of failed passwords, and forgets them)
// Passwords are read from standard input (the first line), or asked for twice on a terminal.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { signInLocks, userDirectory, UserError } from '../backends/identity/index.ts';
import { ConfigError, loadConfig } from '../config/index.ts';
import { openStore } from '../store/database.ts';

const usage = `usage: npm run user -- add <name> [--admin] [--email address] [--first-name A] [--last-name B]
       npm run user -- passwd <name>
       npm run user -- remove <name>
       npm run user -- unlock <name>
       npm run user -- list`;

/** One line read from standard input, without echo on a terminal. */
function readLine(prompt: string): Promise<string> {
  const terminal = process.stdin.isTTY === true;
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: process.stdin, terminal });
    if (terminal) {
      process.stderr.write(prompt);
      // Nothing typed is echoed back.
      (lines as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = () => {};
    }
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      if (terminal) process.stderr.write('\n');
      lines.close();
      resolve(line);
    });
    lines.once('close', () => {
      if (!answered) reject(new Error('no password given on standard input'));
    });
  });
}

let stdinLines: AsyncIterator<string> | undefined;

async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) {
    const first = await readLine('Password: ');
    const second = await readLine('Password again: ');
    if (first !== second) throw new UserError('the passwords differ');
    return first;
  }
  stdinLines ??= createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const next = await stdinLines.next();
  if (next.done) throw new UserError('no password given on standard input');
  return next.value;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      admin: { type: 'boolean', default: false },
      email: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
    },
  });
  const [command, name, ...rest] = positionals;
  const needsName = ['add', 'passwd', 'remove', 'unlock'].includes(command ?? '');
  if (!command || rest.length > 0 || (needsName ? !name : command !== 'list' || name))
    throw new UserError(usage);
  const config = loadConfig();
  if (!config.identity.enabled)
    throw new UserError(
      'An identity provider is configured (AUTH_TOKEN_URL, AUTH_JWKS_URL or AUTH_PUBLIC_KEYS): manage users there.',
    );
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    database: config.database,
  });
  try {
    const users = userDirectory(store, config.uidDomain);
    switch (command) {
      case 'add': {
        const password = await readPassword();
        const user = await users.add({
          username: name!,
          password,
          admin: values.admin,
          ...(values.email ? { email: values.email } : {}),
          ...(values['first-name'] ? { firstName: values['first-name'] } : {}),
          ...(values['last-name'] ? { lastName: values['last-name'] } : {}),
        });
        process.stdout.write(`added ${user.username}${user.admin ? ' (administrator)' : ''}\n`);
        break;
      }
      case 'passwd':
        await users.setPassword(name!, await readPassword());
        process.stdout.write(`changed the password of ${name}\n`);
        break;
      case 'remove':
        await users.remove(name!);
        process.stdout.write(`removed ${name}\n`);
        break;
      case 'unlock': {
        const lifted = await signInLocks(store, config).liftUser(name!);
        process.stdout.write(
          lifted
            ? `lifted the sign-in lock of ${name} (its failed passwords are forgotten)\n`
            : `${name} had no failed sign-ins counted\n`,
        );
        break;
      }
      default:
        for (const user of await users.list())
          process.stdout.write(
            `${[user.username, user.email, [user.firstName, user.lastName].filter(Boolean).join(' '), user.admin ? 'admin' : ''].join('\t').trimEnd()}\n`,
          );
    }
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  const known = error instanceof UserError || error instanceof ConfigError;
  // An unknown option or a missing value: say so and how to call, not a stack trace.
  const badArguments = String((error as { code?: unknown }).code ?? '').startsWith(
    'ERR_PARSE_ARGS',
  );
  if (badArguments) console.error(`${(error as Error).message}\n${usage}`);
  else console.error(known ? (error as Error).message : error);
  process.exit(1);
});
