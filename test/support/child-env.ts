// What a test's child Node process keeps of the test process's environment beside what the test
// gives it: Node's compile cache (NODE_COMPILE_CACHE, which scripts/test.mjs sets), so that a child
// gateway does not compile the sources again (≈ 1.4 against ≈ 1.0 CPU-s a start). The cache holds
// compiled code keyed by each file's contents, nothing of the test's own settings.
export function nodeCacheEnv(): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE;
  return cache ? { NODE_COMPILE_CACHE: cache } : {};
}
