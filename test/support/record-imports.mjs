// Preloaded with `node --import` into a gateway process: writes the URL of every module the
// process imports (ESM resolution: `import` and `import()`) to the file RECORD_IMPORTS_FILE names,
// one a line, so that a test can tell which packages a start loaded.
import { register } from 'node:module';

register(new URL('./record-imports-hooks.mjs', import.meta.url), {
  data: { file: process.env.RECORD_IMPORTS_FILE },
});
