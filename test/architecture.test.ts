import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';

/**
 * The layering of docs/architecture.md §2 as a test: dependencies point one way, domain/ stays pure and workflows/
 * stays deterministic. Each rule lists what a folder may import; anything else fails with the file named.
 */
const root = path.join(__dirname, '..');
const layers = ['api', 'activities', 'db', 'domain', 'runtime', 'workflows'] as const;
type Layer = (typeof layers)[number];

interface Rule {
  layers: Layer[];
  /** Layers importable with `import type` only (erased at compile time, so no code crosses). */
  typeOnlyLayers?: Layer[];
  /** npm packages allowed; undefined means any. */
  packages?: RegExp;
}

const rules: Record<Layer, Rule> = {
  domain: { layers: ['domain'], packages: /^decimal\.js$/ },
  workflows: {
    layers: ['workflows', 'domain'],
    typeOnlyLayers: ['activities'],
    packages: /^(@temporalio\/(workflow|common)|decimal\.js)$/,
  },
  activities: { layers: ['activities', 'domain', 'db'], packages: /^(?!koa|@koa\/|@temporalio\/(client|worker)$)/ },
  db: { layers: ['db', 'domain'], packages: /^(?!koa|@koa\/|@temporalio\/)/ },
  api: { layers: ['api', 'activities', 'domain', 'db'], typeOnlyLayers: ['workflows'] },
  runtime: { layers: [...layers] },
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

// The four forms of an import: import or export … from, a bare import, require() and import().
const importPattern = new RegExp(
  [
    /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]/.source,
    /^\s*import\s+['"]([^'"]+)['"]/.source,
    /require\(['"]([^'"]+)['"]\)/.source,
    /import\(['"]([^'"]+)['"]\)/.source,
  ].join('|'),
  'gm',
);

function violations(layer: Layer, projectRoot = root): string[] {
  const rule = rules[layer];
  const found: string[] = [];
  for (const file of sourceFiles(path.join(projectRoot, layer))) {
    const source = fs.readFileSync(file, 'utf8');
    for (const match of source.matchAll(importPattern)) {
      const specifier = match[3] ?? match[4] ?? match[5] ?? match[6]!;
      const typeOnly = match[2] !== undefined;
      const where = `${path.relative(projectRoot, file)} imports ${specifier}`;
      if (specifier.startsWith('.')) {
        const targetPath = path.relative(projectRoot, path.resolve(path.dirname(file), specifier));
        const target = targetPath.split(path.sep)[0] as Layer;
        if (!(layers as readonly string[]).includes(target)) continue; // package.json and the like
        // The workflows' message definitions are plain values that clients send: the one workflow file the API loads.
        const definitions = layer === 'api' && targetPath === path.join('workflows', 'definitions');
        // The Temporal identities (workflow and Schedule ids, search attributes) are plain values every layer names
        // them by.
        const identities =
          (layer === 'api' || layer === 'activities') && targetPath === path.join('workflows', 'identities');
        // Of db/, the API reads through the models and classifies errors; it writes only through activities.
        const dbPartRefused = layer === 'api' && target === 'db' && !/^db[\\/](models[\\/]|errors$)/.test(targetPath);
        const allowed =
          !dbPartRefused &&
          (definitions ||
            identities ||
            rule.layers.includes(target) ||
            (typeOnly && (rule.typeOnlyLayers ?? []).includes(target)));
        if (!allowed) found.push(where);
      } else if (specifier.startsWith('node:') || /^(fs|path|os|crypto|http|net|child_process)$/.test(specifier)) {
        if (layer === 'domain' || layer === 'workflows') found.push(`${where} (Node built-in: I/O or non-determinism)`);
      } else if (rule.packages !== undefined && !rule.packages.test(specifier)) {
        found.push(where);
      }
    }
    if (
      (layer === 'domain' || layer === 'workflows') &&
      /Date\.now\(|Math\.random\(|new Date\(\)|process\.env/.test(source)
    ) {
      found.push(`${path.relative(projectRoot, file)} reads the clock, randomness or the environment`);
    }
  }
  return found;
}

for (const layer of layers) {
  test(`${layer}/ imports only what the layering allows`, (t) => {
    t.deepEqual(violations(layer), []);
  });
}

/** The project's files each file imports by a relative path (type-only imports too), by path from the root. */
function importGraph(projectRoot: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = layers.flatMap((layer) =>
    fs.existsSync(path.join(projectRoot, layer)) ? sourceFiles(path.join(projectRoot, layer)) : [],
  );
  for (const file of files) {
    const targets = [...fs.readFileSync(file, 'utf8').matchAll(importPattern)]
      .map((match) => match[3] ?? match[4] ?? match[5] ?? match[6]!)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => path.resolve(path.dirname(file), specifier))
      .flatMap((target) => [`${target}.ts`, path.join(target, 'index.ts')].filter((one) => fs.existsSync(one)))
      .map((target) => path.relative(projectRoot, target));
    graph.set(path.relative(projectRoot, file), targets);
  }
  return graph;
}

/**
 * The import cycles of the project, each as the files around it (`a.ts → b.ts → a.ts`): a depth-first walk that
 * reports every import leading back to a file still on its path.
 */
function importCycles(projectRoot = root): string[] {
  const graph = importGraph(projectRoot);
  const done = new Set<string>();
  const onPath: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string) => {
    onPath.push(file);
    for (const target of graph.get(file) ?? []) {
      const back = onPath.indexOf(target);
      if (back !== -1) cycles.push([...onPath.slice(back), target].join(' → '));
      else if (!done.has(target)) visit(target);
    }
    onPath.pop();
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) if (!done.has(file)) visit(file);
  return cycles;
}

test("no import cycle among the project's files (issue 26: four were removed, none may come back)", (t) => {
  t.deepEqual(importCycles(), []);
});

test('the cycle check finds a cycle (the checker itself works)', (t) => {
  const probeRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'cycles-'));
  fs.mkdirSync(path.join(probeRoot, 'domain', 'loans'), { recursive: true });
  const write = (file: string, text: string) => fs.writeFileSync(path.join(probeRoot, 'domain', file), text);
  write('a.ts', "import { b } from './loans/b';\nexport const a = b;\n");
  write('loans/b.ts', "import type { C } from '../c';\nexport const b = 1 as C;\n");
  write('c.ts', "export type C = number;\nimport '../domain/a';\n");
  write('d.ts', "import { a } from './a';\nexport const d = a;\n");
  try {
    t.deepEqual(importCycles(probeRoot), ['domain/a.ts → domain/loans/b.ts → domain/c.ts → domain/a.ts']);
  } finally {
    fs.rmSync(probeRoot, { recursive: true });
  }
});

test('the rule catches a forbidden import (the checker itself works)', (t) => {
  const probeRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'layering-'));
  fs.mkdirSync(path.join(probeRoot, 'domain'));
  fs.writeFileSync(
    path.join(probeRoot, 'domain', 'probe.ts'),
    "import { createKnex } from '../db/knex';\nexport const x = Date.now();\n",
  );
  fs.mkdirSync(path.join(probeRoot, 'api'));
  fs.writeFileSync(
    path.join(probeRoot, 'api', 'probe.ts'),
    ['knex', 'models/user.model', 'errors', 'transaction'].map((file) => `import '../db/${file}';\n`).join(''),
  );
  try {
    t.deepEqual(violations('domain', probeRoot).sort(), [
      'domain/probe.ts imports ../db/knex',
      'domain/probe.ts reads the clock, randomness or the environment',
    ]);
    t.deepEqual(
      violations('api', probeRoot).sort(),
      ['api/probe.ts imports ../db/knex', 'api/probe.ts imports ../db/transaction'],
      'of db/, the API imports the models and errors only',
    );
  } finally {
    fs.rmSync(probeRoot, { recursive: true });
  }
});

test(
  'one name per module across layers: api/modules/<module>/ declares routes of <module> only, and activities/ ' +
    'and domain/ use the same names',
  (t) => {
    const { apiRoutes } = require('../api/routes') as typeof import('../api/routes');
    const modules = new Set(apiRoutes.map((route) => route.module));
    const folders = (dir: string) =>
      fs
        .readdirSync(path.join(root, dir), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    t.deepEqual(folders('api/modules').sort(), [...modules].sort(), 'a folder per module of the API');
    for (const layer of ['activities', 'domain']) {
      for (const folder of folders(layer)) t.true(modules.has(folder), `${layer}/${folder}/ is named after a module`);
    }
    for (const folder of folders('api/modules')) {
      for (const file of fs.readdirSync(path.join(root, 'api/modules', folder))) {
        const declared = [
          ...fs.readFileSync(path.join(root, 'api/modules', folder, file), 'utf8').matchAll(/module: '([a-z]+)'/g),
        ].map((match) => match[1]);
        t.true(
          declared.every((module) => module === folder),
          `api/modules/${folder}/${file} declares routes of ${folder} only`,
        );
      }
    }
  },
);

/**
 * Activity files that are one operation of a resource rather than the resource itself, each with the routes file
 * (`api/modules/<module>/<x>.routes.ts`) or the workflow (`workflows/<x>.workflow.ts`) that calls it. Any other
 * activity file has the name of its resource's routes file or of its workflow: adding one here is a decision.
 */
const operationFiles: Record<string, string> = {
  'accounting/fixed-asset-depreciation': 'workflows/month-end.workflow.ts',
  'auth/change-password': 'api/modules/auth/auth.routes.ts',
  'auth/create-user': 'api/modules/auth/users.routes.ts',
  'auth/register': 'api/modules/auth/auth.routes.ts',
  'auth/sign-in': 'api/modules/auth/auth.routes.ts',
  'enterprise/result-allocation-policy': 'api/modules/enterprise/result-allocations.routes.ts',
  'events/configure-rule': 'api/modules/events/events.routes.ts',
  'loans/disbursement': 'api/modules/loans/loans.routes.ts',
  'loans/interest-accrual': 'workflows/month-end.workflow.ts',
  'loans/loan-position': 'api/modules/loans/loans.routes.ts',
  'loans/portfolio-quality': 'api/modules/loans/loans.routes.ts',
  'loans/unearned-interest': 'workflows/month-end.workflow.ts',
  'members/early-closure': 'api/modules/members/member-accounts.routes.ts',
  'members/savings-accrual': 'workflows/month-end.workflow.ts',
  'members/term-deposits': 'api/modules/members/savings-interest.routes.ts',
  'shares/share-refunds': 'workflows/share-withdrawal.workflow.ts',
};

test(
  "one name per resource across layers: an activity file has its routes file's or its workflow's name, or is a " +
    'listed operation its caller uses',
  (t) => {
    const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
    const exported = (file: string) =>
      [...read(file).matchAll(/^export (?:async )?function (\w+)/gm)].map((match) => match[1] ?? '');
    for (const folder of fs
      .readdirSync(path.join(root, 'activities'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())) {
      for (const file of fs
        .readdirSync(path.join(root, 'activities', folder.name))
        .filter((name) => name.endsWith('.activity.ts'))) {
        const name = file.replace(/\.activity\.ts$/, '');
        const named =
          fs.existsSync(path.join(root, 'api/modules', folder.name, `${name}.routes.ts`)) ||
          fs.existsSync(path.join(root, 'workflows', `${name}.workflow.ts`));
        const caller = operationFiles[`${folder.name}/${name}`];
        t.true(
          named || caller !== undefined,
          `activities/${folder.name}/${file}: name it after its routes file or workflow, or list it in operationFiles`,
        );
        if (caller === undefined) continue;
        t.false(named, `${folder.name}/${name} is a resource's name: leave it out of operationFiles`);
        const text = read(caller);
        t.true(
          exported(`activities/${folder.name}/${file}`).some((fn) => text.includes(fn)),
          `${caller} calls an operation of activities/${folder.name}/${file}`,
        );
      }
    }
  },
);

test('every file path docs/architecture.md names in backticks exists', (t) => {
  // File-like only (folders, a slash and an extension, no wildcard or ellipsis): a folder or a command is not checked.
  const filePath = /^[\w.-]+(\/[\w.-]+)+\.[A-Za-z0-9]+$/;
  const named = [...fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8').matchAll(/`([^`\n]+)`/g)]
    .map((match) => match[1]!)
    .filter((text) => filePath.test(text));
  t.true(named.length > 20, `${named.length} paths found: the pattern still finds them`);
  t.deepEqual([...new Set(named.filter((file) => !fs.existsSync(path.join(root, file))))], []);
});
