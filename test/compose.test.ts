import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { parse } from 'yaml';

/**
 * The container deployment (Dockerfile, .dockerignore, docker-compose.yml) checked as files: no Docker and no
 * database needed. What a typo there would otherwise show only at `docker compose up`: a dependency on a
 * missing service, a wait on a health that is never reported, a process without its configuration, a
 * secret in the file, an image missing a folder the code loads.
 */

const root = path.join(__dirname, '..');
const read = (file: string): string => fs.readFileSync(path.join(root, file), 'utf8');

type Service = Record<string, unknown>;

const expectedServices = ['postgres', 'temporal', 'temporal-ui', 'api', 'worker'];
const dependencyConditions = ['service_started', 'service_healthy', 'service_completed_successfully'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function loadCompose(): { text: string; services: Record<string, Service> } {
  const text = read('docker-compose.yml');
  // merge: the file shares the API's and workers' environment through a YAML merge key, as compose does.
  const document: unknown = parse(text, { merge: true });
  if (!isRecord(document) || !isRecord(document.services))
    throw new Error('docker-compose.yml has no services mapping');
  const services: Record<string, Service> = {};
  for (const [name, service] of Object.entries(document.services)) {
    if (!isRecord(service)) throw new Error(`service ${name} is not a mapping`);
    services[name] = service;
  }
  return { text, services };
}

function service(services: Record<string, Service>, name: string): Service {
  const found = services[name];
  if (found === undefined) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** `environment:` as a map, whether written as a mapping or as a list of NAME=value. */
function environmentOf(svc: Service): Record<string, string> {
  const environment = svc.environment;
  if (environment === undefined) return {};
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map((entry) => {
        const text = String(entry);
        const equals = text.indexOf('=');
        return equals === -1 ? [text, ''] : [text.slice(0, equals), text.slice(equals + 1)];
      }),
    );
  }
  if (!isRecord(environment)) throw new Error('environment is neither a mapping nor a list');
  return Object.fromEntries(
    Object.entries(environment).map(([key, value]) => [key, value === null ? '' : String(value)]),
  );
}

/** `depends_on:` as service -> condition, whether written as a list (condition service_started) or a mapping. */
function dependenciesOf(svc: Service): Record<string, unknown> {
  const dependsOn = svc.depends_on;
  if (dependsOn === undefined) return {};
  if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((name) => [String(name), 'service_started']));
  if (!isRecord(dependsOn)) throw new Error('depends_on is neither a mapping nor a list');
  return Object.fromEntries(
    Object.entries(dependsOn).map(([name, options]) => [
      name,
      isRecord(options) ? (options.condition ?? 'service_started') : undefined,
    ]),
  );
}

/** A command (compose `command:` or Dockerfile CMD) as its argument list. */
function argv(command: unknown): string[] {
  if (typeof command === 'string') return command.trim().split(/\s+/);
  if (Array.isArray(command) && command.every((part) => typeof part === 'string')) return command;
  throw new Error(`not a command: ${JSON.stringify(command)}`);
}

/** The arguments of a Dockerfile CMD, exec form (JSON array) or shell form. */
function dockerCommand(args: string): string[] {
  return argv(args.trim().startsWith('[') ? (JSON.parse(args) as unknown) : args);
}

function packageScripts(): Record<string, string> {
  const manifest = JSON.parse(read('package.json')) as { scripts?: Record<string, string> };
  return manifest.scripts ?? {};
}

/** Replaces every ${...} interpolation by `value`, to read the literal rest of a string. */
function withoutInterpolations(text: string, value = 'interpolated'): string {
  return text.replace(/\$\{[^}]*\}/g, value);
}

/** A required interpolation of `variable`: compose refuses to start while it is unset or empty. */
function requiredInterpolation(variable: string): RegExp {
  return new RegExp(`^\\$\\{${variable}:\\?[^}]*\\}$`);
}

interface Dockerfile {
  /** Instructions of the final stage, continuation lines joined, comments dropped. */
  finalStage: { instruction: string; args: string }[];
  /** Instructions of every stage, the final one included. */
  allStages: { instruction: string; args: string }[];
  /** Images the stages start from, with ARG defaults substituted (an earlier stage named in FROM is none). */
  baseImages: string[];
}

function loadDockerfile(): Dockerfile {
  const lines = read('Dockerfile')
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const args: Record<string, string> = {};
  const baseImages: string[] = [];
  const stageNames = new Set<string>();
  const allStages: Dockerfile['allStages'] = [];
  let finalStage: Dockerfile['finalStage'] = [];
  for (const line of lines) {
    const match = /^(\S+)\s*(.*)$/.exec(line);
    if (match === null) continue;
    const instruction = (match[1] ?? '').toUpperCase();
    const rest = match[2] ?? '';
    if (instruction === 'ARG') {
      const equals = rest.indexOf('=');
      if (equals !== -1) args[rest.slice(0, equals).trim()] = rest.slice(equals + 1).trim();
    } else if (instruction === 'FROM') {
      const [from = '', as, name] = rest.split(/\s+/);
      const image = from.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string, b: string) => args[a ?? b] ?? '');
      if (!stageNames.has(image)) baseImages.push(image);
      if (as?.toUpperCase() === 'AS' && name !== undefined) stageNames.add(name);
      finalStage = [];
    } else {
      finalStage.push({ instruction, args: rest });
      allStages.push({ instruction, args: rest });
    }
  }
  return { finalStage, allStages, baseImages };
}

/** Sources of every stage's COPY instructions from the build context (not from another stage). */
function copiedFromContext(dockerfile: Dockerfile): string[] {
  return dockerfile.allStages
    .filter(({ instruction, args }) => instruction === 'COPY' && !/(^|\s)--from=/.test(args))
    .flatMap(({ args }) => {
      const parts = args.split(/\s+/).filter((part) => !part.startsWith('--'));
      return parts.slice(0, -1); // the last one is the destination
    });
}

/** A Dockerfile/.dockerignore wildcard pattern as a regular expression (*, ? and [...] classes). */
function globToRegExp(pattern: string): RegExp {
  const source = pattern
    .replace(/\/+$/, '')
    .split(/(\[[^\]]*\])/)
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part
            .replace(/[.+^${}()|\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]'),
    )
    .join('');
  return new RegExp(`^${source}$`);
}

/** Every repository file the module graph of `entries` loads through relative imports. */
function moduleGraph(entries: string[]): { files: Set<string>; unresolved: string[] } {
  const files = new Set<string>();
  const unresolved: string[] = [];
  const pending = [...entries];
  const specifiers =
    /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire(?:\.resolve)?\s*\(\s*)['"](\.{1,2}\/[^'"]*)['"]/g;
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    for (const match of read(file).matchAll(specifiers)) {
      const target = path.join(path.dirname(file), match[1] ?? '');
      const resolved = ['.ts', '.js', '.json', '/index.ts', '/index.js', '']
        .map((suffix) => target + suffix)
        .find((candidate) => {
          const absolute = path.join(root, candidate);
          return fs.existsSync(absolute) && fs.statSync(absolute).isFile();
        });
      if (resolved === undefined) unresolved.push(`${match[1]} (from ${file})`);
      else pending.push(resolved);
    }
  }
  return { files, unresolved };
}

test('declares the five services, each with an image to pull or to build', (t) => {
  const { services } = loadCompose();
  for (const name of expectedServices) t.true(name in services, `service ${name} is missing`);
  for (const [name, svc] of Object.entries(services)) {
    t.true(typeof svc.image === 'string' || svc.build !== undefined, `service ${name} has neither image nor build`);
  }
});

test('pulls only images pinned to a version, never latest', (t) => {
  const { services } = loadCompose();
  const images = [
    ...Object.values(services).flatMap((svc) => (typeof svc.image === 'string' ? [svc.image] : [])),
    ...loadDockerfile().baseImages,
  ];
  t.true(images.length >= 5, `expected the four pulled images and the Dockerfile's base, got ${images.join(', ')}`);
  for (const image of images) {
    const tag = /^[^@]*?:([\w][\w.-]*)(@sha256:[0-9a-f]{64})?$/.exec(image.replace(/^[^/]*:\d+\//, ''))?.[1];
    t.truthy(tag, `${image} has no tag`);
    t.not(tag, 'latest', `${image} is not pinned`);
  }
});

test('every depends_on names another existing service, with a valid condition, without a cycle', (t) => {
  const { services } = loadCompose();
  for (const [name, svc] of Object.entries(services)) {
    for (const [dependency, condition] of Object.entries(dependenciesOf(svc))) {
      t.not(dependency, name, `${name} depends on itself`);
      t.true(dependency in services, `${name} depends on a missing service ${dependency}`);
      t.true(
        dependencyConditions.includes(String(condition)),
        `${name} -> ${dependency}: invalid condition ${String(condition)}`,
      );
      if (condition === 'service_healthy') {
        // Compose refuses to start a wait on the health of a service that reports none.
        t.truthy(
          services[dependency]?.healthcheck,
          `${name} waits for ${dependency} to be healthy, which has no healthcheck`,
        );
      }
    }
  }
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (name: string, trail: string[]): void => {
    if (done.has(name)) return;
    if (visiting.has(name)) {
      t.fail(`depends_on cycle: ${[...trail, name].join(' -> ')}`);
      return;
    }
    visiting.add(name);
    for (const dependency of Object.keys(dependenciesOf(services[name] ?? {}))) visit(dependency, [...trail, name]);
    visiting.delete(name);
    done.add(name);
  };
  for (const name of Object.keys(services)) visit(name, []);
});

test('postgres, temporal and api report their health with a test command', (t) => {
  const { services } = loadCompose();
  for (const name of ['postgres', 'temporal', 'api']) {
    const healthcheck = service(services, name).healthcheck;
    t.true(isRecord(healthcheck), `${name} has no healthcheck`);
    if (!isRecord(healthcheck)) continue;
    t.not(healthcheck.disable, true, `${name}'s healthcheck is disabled`);
    const check = healthcheck.test;
    if (typeof check === 'string') {
      t.not(check.trim(), '', `${name}'s healthcheck test is empty`);
    } else {
      t.true(Array.isArray(check), `${name}'s healthcheck has no test`);
      const [kind, ...command] = Array.isArray(check) ? (check as unknown[]).map(String) : [];
      t.true(
        kind === 'CMD' || kind === 'CMD-SHELL',
        `${name}'s healthcheck test must start with CMD or CMD-SHELL, got ${kind}`,
      );
      t.true(
        command.length > 0 && command.every((part) => part.trim() !== ''),
        `${name}'s healthcheck test has no command`,
      );
    }
  }
});

test('the api health check asks /readyz on the port the api listens on and publishes', (t) => {
  const { services } = loadCompose();
  const api = service(services, 'api');
  const check = isRecord(api.healthcheck) ? JSON.stringify(api.healthcheck.test) : '';
  const url = /http:\/\/(?:127\.0\.0\.1|localhost):(\d+)(\/\w+)/.exec(check);
  t.truthy(url, `the api healthcheck names no local URL: ${check}`);
  t.is(url?.[2], '/readyz', 'the api healthcheck must ask readiness (database and Temporal), not mere liveness');
  const port = environmentOf(api).PORT ?? '8000'; // runtime/config.ts default
  t.is(url?.[1], port, 'the healthcheck port is not the PORT the api listens on');
  const published = Array.isArray(api.ports) ? api.ports.map((entry) => String(entry).split(':').pop()) : [];
  t.true(published.includes(port), `the api publishes ${published.join(', ') || 'nothing'}, not its port ${port}`);
});

test('the container binds every interface, where npm start binds only the loopback', (t) => {
  const imageEnv = loadDockerfile()
    .finalStage.filter(({ instruction }) => instruction === 'ENV')
    .map(({ args }) => args)
    .join(' ');
  const host = environmentOf(service(loadCompose().services, 'api')).HOST ?? /(?:^|\s)HOST=(\S+)/.exec(imageEnv)?.[1];
  t.is(host, '0.0.0.0', 'the api container must set HOST=0.0.0.0, or its published port reaches nothing');
});

test(
  'api and worker get the database and Temporal of this ' + 'compose file, and the worker waits for the migrating api',
  (t) => {
    const { services } = loadCompose();
    const postgres = environmentOf(service(services, 'postgres'));
    const temporal = environmentOf(service(services, 'temporal'));
    for (const name of ['api', 'worker']) {
      const environment = environmentOf(service(services, name));
      t.is(environment.NODE_ENV, 'production', `${name} must run with NODE_ENV=production`);

      const databaseUrl = environment.DATABASE_URL;
      t.truthy(databaseUrl, `${name} gets no DATABASE_URL`);
      const url = new URL(withoutInterpolations(databaseUrl ?? 'missing://'));
      t.true(['postgres:', 'postgresql:'].includes(url.protocol), `${name}: DATABASE_URL is not a postgres URL`);
      t.true(url.hostname in services, `${name}: DATABASE_URL host ${url.hostname} is no service`);
      // The postgres image's defaults: user `postgres`, and a database named as the user.
      const postgresUser = postgres.POSTGRES_USER ?? 'postgres';
      t.is(url.username, postgresUser, `${name}: DATABASE_URL user is not the postgres service's user`);
      t.is(
        url.pathname,
        `/${postgres.POSTGRES_DB ?? postgresUser}`,
        `${name}: DATABASE_URL database is not the postgres service's database`,
      );
      t.true(
        Object.keys(dependenciesOf(service(services, name))).includes(url.hostname),
        `${name} does not depend on ${url.hostname}`,
      );

      const temporalAddress = environment.TEMPORAL_ADDRESS;
      t.truthy(temporalAddress, `${name} gets no TEMPORAL_ADDRESS`);
      const [host, port] = (temporalAddress ?? '').split(':');
      t.true(host !== undefined && host in services, `${name}: TEMPORAL_ADDRESS host ${host} is no service`);
      t.regex(port ?? '', /^\d+$/, `${name}: TEMPORAL_ADDRESS has no port`);
      t.true(
        Object.keys(dependenciesOf(service(services, name))).includes(host ?? ''),
        `${name} does not depend on ${host}`,
      );

      // Temporal registers DEFAULT_NAMESPACE (and its healthcheck waits for it): the one the processes use.
      t.is(
        environment.TEMPORAL_NAMESPACE ?? 'default',
        temporal.DEFAULT_NAMESPACE ?? 'default',
        `${name} uses another namespace than temporal creates`,
      );
    }
    t.is(
      dependenciesOf(service(services, 'worker')).api,
      'service_healthy',
      'the worker never migrates: it must wait for a healthy api',
    );
  },
);

test(
  'published ports are "host:container" strings, each host ' + 'port once, a range of host ports for a scaled service',
  (t) => {
    const { services } = loadCompose();
    const hostPorts: string[] = [];
    for (const [name, svc] of Object.entries(services)) {
      if (svc.ports === undefined) continue;
      t.true(Array.isArray(svc.ports), `${name}: ports is not a list`);
      for (const entry of Array.isArray(svc.ports) ? (svc.ports as unknown[]) : []) {
        // Quoted: YAML 1.1 parsers, compose's among them in places, read an unquoted 22:22 as a base-60 number.
        t.is(typeof entry, 'string', `${name}: port ${JSON.stringify(entry)} is not a quoted string`);
        const match = /^(?:(\d{1,3}(?:\.\d{1,3}){3}):)?(\d{1,5})(?:-(\d{1,5}))?:(\d{1,5})(?:\/(?:tcp|udp))?$/.exec(
          String(entry),
        );
        t.truthy(match, `${name}: port ${String(entry)} is not host:container or a host range:container`);
        // By number alone: a port bound on all interfaces cannot also be bound on one of them.
        const [first, last] = [Number(match?.[2]), Number(match?.[3] ?? match?.[2])];
        t.true(first <= last, `${name}: the host range ${String(entry)} is empty`);
        for (let port = first; port <= last; port += 1) hostPorts.push(String(port));
        // A host range leaves room for this many replicas, each on its own port.
        const deploy = svc.deploy;
        const replicas = isRecord(deploy) ? Number(deploy.replicas ?? 1) : 1;
        t.true(
          replicas <= last - first + 1,
          `${name} runs ${replicas} replicas: they cannot all publish ${String(entry)}`,
        );
      }
    }
    t.deepEqual(hostPorts, [...new Set(hostPorts)], 'a host port is published twice');
    t.true(hostPorts.length > 0, 'nothing is published: the api cannot be reached');
  },
);

test('the worker is scaled out', (t) => {
  const worker = service(loadCompose().services, 'worker');
  const replicas = isRecord(worker.deploy) ? worker.deploy.replicas : undefined;
  t.true(typeof replicas === 'number' && replicas >= 2, `worker deploy.replicas is ${String(replicas)}`);
});

test('no secret is written in the compose file: each is a required variable', (t) => {
  const { text, services } = loadCompose();
  for (const name of ['api', 'worker']) {
    t.regex(
      environmentOf(service(services, name)).JWT_SECRET ?? '',
      requiredInterpolation('JWT_SECRET'),
      `${name}: JWT_SECRET must be \${JWT_SECRET:?...}`,
    );
    const databaseUrl = new URL(
      withoutInterpolations(environmentOf(service(services, name)).DATABASE_URL ?? 'missing://', 'INTERPOLATED'),
    );
    t.is(databaseUrl.password, 'INTERPOLATED', `${name}: the DATABASE_URL password is written in the file`);
  }
  t.regex(
    environmentOf(service(services, 'postgres')).POSTGRES_PASSWORD ?? '',
    requiredInterpolation('POSTGRES_PASSWORD'),
  );
  t.regex(environmentOf(service(services, 'temporal')).POSTGRES_PWD ?? '', requiredInterpolation('POSTGRES_PASSWORD'));
  // Anywhere else in the file (another service, an anchor, a list entry): a JWT secret only as the variable.
  const jwtLines = text.split(/\r?\n/).filter((line) => !line.trim().startsWith('#') && line.includes('JWT_SECRET'));
  t.true(jwtLines.length > 0, 'the file gives JWT_SECRET to no one');
  for (const line of jwtLines) {
    t.regex(
      line.trim(),
      /^-?\s*JWT_SECRET\s*[:=]\s*["']?\$\{JWT_SECRET:\?[^}]*\}["']?$/,
      `JWT_SECRET written otherwise than as the required variable: ${line.trim()}`,
    );
  }
});

test(
  'the Dockerfile runs the package.json api script as a ' + 'non-root user, and compose runs the package.json scripts',
  (t) => {
    t.true(fs.existsSync(path.join(root, 'Dockerfile')), 'no Dockerfile');
    const dockerfile = loadDockerfile();
    const scripts = packageScripts();
    const commandOfScript = (command: string[]): string | undefined =>
      command[0] === 'npm' && command[1] === 'run'
        ? command[2] !== undefined && command[2] in scripts
          ? command[2]
          : undefined
        : Object.keys(scripts).find((script) => scripts[script] === command.join(' '));

    const cmd = dockerfile.finalStage.filter(({ instruction }) => instruction === 'CMD').pop();
    t.truthy(cmd, 'the Dockerfile has no CMD');
    t.is(
      commandOfScript(dockerCommand(cmd?.args ?? '')),
      'api',
      `the Dockerfile CMD is not the package.json api script: ${cmd?.args}`,
    );

    const user = dockerfile.finalStage
      .filter(({ instruction }) => instruction === 'USER')
      .pop()
      ?.args.split(':')[0];
    t.truthy(user, 'the image runs as root: no USER');
    t.false(user === 'root' || user === '0', `the image runs as ${user}`);

    const { services } = loadCompose();
    for (const name of ['api', 'worker']) {
      const svc = service(services, name);
      t.truthy(svc.build, `${name} does not run the image built from the Dockerfile`);
      const command = svc.command === undefined ? dockerCommand(cmd?.args ?? '') : argv(svc.command);
      t.is(
        commandOfScript(command),
        name,
        `${name} does not run the package.json ${name} script: ${command.join(' ')}`,
      );
    }
  },
);

test(
  'the image builds from every file the api and worker load, keeps what it built, and .dockerignore keeps none ' +
    'of them out',
  (t) => {
    const dockerfile = loadDockerfile();
    const copied = copiedFromContext(dockerfile);
    // The final stage runs the compiled code: dist/ of the build stage (test/runtime/compiled.test.ts runs it).
    t.true(
      dockerfile.finalStage.some(
        ({ instruction, args }) => instruction === 'COPY' && /--from=build\s+\/app\/dist\s/.test(args),
      ),
      'the final stage does not copy /app/dist from the build stage',
    );
    // The entry points, and the migrations the API's knex loads from their folder rather than by import.
    const migrations = fs.readdirSync(path.join(root, 'db', 'migrations')).map((file) => `db/migrations/${file}`);
    const { files, unresolved } = moduleGraph(['runtime/api-main.ts', 'runtime/worker-main.ts', ...migrations]);
    t.deepEqual(unresolved, [], 'imports that resolve to no file');
    t.true(files.size > 10, `the module graph found only ${files.size} files`);
    const patterns = copied.map(globToRegExp);
    for (const file of files) {
      const topLevel = file.split('/')[0] ?? '';
      t.true(
        patterns.some((pattern) => pattern.test(topLevel) || pattern.test(file)),
        `${file} is loaded at run time but not copied into the image`,
      );
    }
    for (const source of ['package.json', 'package-lock.json'])
      t.true(copied.includes(source), `${source} is not copied`);

    const ignored = read('.dockerignore')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('!'))
      .map(globToRegExp);
    for (const source of copied) {
      t.false(
        ignored.some((pattern) => pattern.test(source.replace(/\[(\w)\]/g, '$1'))),
        `.dockerignore excludes ${source}, which the Dockerfile copies`,
      );
    }
    for (const local of ['node_modules', '.data', '.git', '.env']) {
      t.true(
        ignored.some((pattern) => pattern.test(local)),
        `.dockerignore lets ${local} into the build context`,
      );
    }
  },
);
