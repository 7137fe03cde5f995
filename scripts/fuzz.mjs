// `npm run fuzz`: the fuzzing of every operation (test/fuzz/operations.test.ts) at length, with
// many runs per operation (FUZZ_RUNS, default 50) and a random seed (FUZZ_SEED), printed first so
// that a failure can be replayed: `FUZZ_SEED=<seed> FUZZ_RUNS=<runs> npm run fuzz`. FUZZ_ENGINE=
// postgres runs it on PostgreSQL (DATABASE_URL), FUZZ_ONLY=<path substring> on some operations.
// `npm test` runs the same file with a fixed seed and a few runs.
// Plain JavaScript, like scripts/test.mjs: it runs before anything is compiled.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';

const seed = process.env.FUZZ_SEED ?? String(randomInt(2 ** 31));
const runs = process.env.FUZZ_RUNS ?? '50';
console.log(
  `fuzzing with FUZZ_SEED=${seed} FUZZ_RUNS=${runs} (the same again: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz)`,
);
const child = spawn(process.execPath, ['--test', 'test/fuzz/operations.test.ts'], {
  env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: runs, CONTRACT_CHECK: '1' },
  stdio: 'inherit',
});
child.on('exit', (code, signal) => {
  if (code !== 0) console.log(`replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npm run fuzz`);
  process.exitCode = code ?? (signal ? 1 : 0);
});
