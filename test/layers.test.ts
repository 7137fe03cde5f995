// The source's folders form layers: no import circle between folders, counting a folder and the
// folders inside it as folders of their own (dependency-cruiser's folder rule, run by `npm run lint`,
// does not see a parent folder and its subfolder importing each other), and none between files.
// Files directly in src/ (main.ts, app.ts, cluster.ts, ...) are each a node of their own: app.ts
// puts every layer together.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cruise, type IModule } from 'dependency-cruiser';

const root = fileURLToPath(new URL('..', import.meta.url));

async function sourceModules(): Promise<IModule[]> {
  const previous = process.cwd();
  process.chdir(root);
  try {
    const result = await cruise(['src'], {
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
    });
    if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text');
    return result.output.modules.filter((module) => module.source.startsWith('src/'));
  } finally {
    process.chdir(previous);
  }
}

/** The node a file counts as: its folder, or the file itself when it lies directly in src/. */
function nodeOf(file: string): string {
  const folder = path.posix.dirname(file);
  return folder === 'src' ? file : folder;
}

/** Tarjan's strongly connected components of more than one node: the circles. */
function circles(graph: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function graphOf(modules: IModule[], node: (file: string) => string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const module of modules) {
    const from = node(module.source);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const dependency of module.dependencies) {
      if (!dependency.resolved.startsWith('src/')) continue;
      const to = node(dependency.resolved);
      if (to !== from) edges.add(to);
    }
  }
  return graph;
}

test('no import circle between folders, a folder and its subfolders included, nor between files', async () => {
  const modules = await sourceModules();
  assert.ok(modules.length > 100, `read ${modules.length} source files`);
  assert.deepEqual(circles(graphOf(modules, nodeOf)), [], 'folders that import each other');
  assert.deepEqual(circles(graphOf(modules, (file) => file)), [], 'files that import each other');
});

test('the circle check sees a parent folder and its subfolder importing each other', () => {
  const graph = graphOf(
    [
      {
        source: 'src/backends/apps/index.ts',
        dependencies: [{ resolved: 'src/backends/apps/jobs/runner.ts' }],
      },
      {
        source: 'src/backends/apps/jobs/runner.ts',
        dependencies: [{ resolved: 'src/backends/apps/definition.ts' }],
      },
    ] as unknown as IModule[],
    nodeOf,
  );
  assert.deepEqual(circles(graph), [['src/backends/apps', 'src/backends/apps/jobs']]);
});
