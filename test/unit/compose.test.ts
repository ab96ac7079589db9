// compose.yaml, the scale-out shape (docs/deployment.md, "Compose"), checked without running it
// (no registry to pull PostgreSQL, Redis or MinIO from here): two nodes of this repository's image,
// every setting they get is one src/config.ts reads and loadConfig accepts, their addresses name
// services of the file, and no secret has a default.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const compose = parse(fs.readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  entrypoint?: string[];
  ports?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
}

/** Compose's variable interpolation: ${NAME}, ${NAME:-default}, ${NAME:?error}, and $$ for $. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value
    .replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => {
      const set = vars[name];
      if (set !== undefined && set !== '') return set;
      if (kind === '?') throw new Error(`${name} is required: ${rest}`);
      return kind === '-' ? (rest ?? '') : '';
    })
    .replaceAll('$$', '$');
}

const SECRETS = { POSTGRES_PASSWORD: 'pg-secret-from-env', MINIO_ROOT_PASSWORD: 'minio-secret-from-env' };

function environment(service: string, vars: Record<string, string> = SECRETS): Record<string, string> {
  const env = compose.services[service].environment ?? {};
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, interpolate(String(value), vars)]));
}

/** loadConfig on `env`, and every variable name it read. */
function configOf(env: Record<string, string>) {
  const read = new Set<string>();
  const recorder = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return target[name as string];
    },
  });
  return { config: loadConfig(recorder), read };
}

const NODES = ['node1', 'node2'];

describe('compose.yaml', () => {
  it('has two nodes built from this repository, PostgreSQL, Redis and an S3-compatible store', () => {
    const services = compose.services;
    for (const node of NODES) {
      assert.equal(services[node].build, '.', `${node} is built from the Dockerfile`);
      assert.match(services[node].image ?? '', /^compliance-data-service:/);
    }
    assert.match(services.postgres.image ?? '', /^postgres:\d+$/);
    assert.match(services.redis.image ?? '', /^redis:\d+$/);
    assert.match(services.minio.image ?? '', /^minio\/minio:/);
    assert.deepEqual(services.migrate.command, ['cds', 'migrate'], 'migrations run once, before the nodes');
  });

  it('gives the nodes only settings src/config.ts reads, and loadConfig accepts them', () => {
    for (const service of [...NODES, 'migrate']) {
      const env = environment(service);
      const { config, read } = configOf(env);
      assert.deepEqual(
        Object.keys(env).filter((name) => !read.has(name)),
        [],
        `${service}: settings src/config.ts does not read`,
      );
      assert.equal(config.s3?.bucket, 'cds-blobs');
    }
  });

  it("points every node at the file's PostgreSQL, Redis and MinIO, with their credentials", () => {
    const postgres = environment('postgres');
    const minio = environment('minio');
    const setup = compose.services['minio-setup'].entrypoint!.join(' ');
    for (const node of NODES) {
      const { config } = configOf(environment(node));
      const db = new URL(config.databaseUrl!);
      assert.equal(db.hostname, 'postgres');
      assert.equal(db.username, postgres.POSTGRES_USER);
      assert.equal(db.password, postgres.POSTGRES_PASSWORD);
      assert.equal(db.pathname, `/${postgres.POSTGRES_DB}`);
      assert.equal(new URL(config.redisUrl!).hostname, 'redis');
      assert.equal(new URL(config.s3!.endpoint!).hostname, 'minio');
      assert.equal(config.s3!.forcePathStyle, true, 'MinIO serves buckets by path');
      assert.equal(config.s3!.accessKeyId, minio.MINIO_ROOT_USER);
      assert.equal(config.s3!.secretAccessKey, minio.MINIO_ROOT_PASSWORD);
      assert.ok(setup.includes(`local/${config.s3!.bucket}`), `minio-setup creates the bucket: ${setup}`);
      assert.equal(config.demoOnEmpty, false, 'no demo organization on a production database');
      for (const dependency of Object.keys(compose.services[node].depends_on ?? {})) {
        assert.ok(compose.services[dependency], `${node} depends on ${dependency}, a service of the file`);
      }
    }
  });

  it('publishes each node on loopback at the port it listens on, and a different host port per node', () => {
    const hostPorts = NODES.map((node) => {
      const { config } = configOf(environment(node));
      const [mapping] = compose.services[node].ports!;
      const [host, hostPort, containerPort] = mapping.split(':');
      assert.equal(host, '127.0.0.1');
      assert.equal(Number(containerPort), config.port);
      assert.notEqual(config.ops.port, config.port);
      return hostPort;
    });
    assert.equal(new Set(hostPorts).size, NODES.length);
  });

  it('has no default for a secret: without POSTGRES_PASSWORD or MINIO_ROOT_PASSWORD it does not start', () => {
    for (const missing of Object.keys(SECRETS)) {
      const vars = { ...SECRETS, [missing]: '' };
      assert.throws(() => environment('node1', vars), new RegExp(`${missing} is required`));
    }
    const text = fs.readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8');
    assert.deepEqual(text.match(/\$\{\w*(PASSWORD|SECRET|KEY)\w*:-[^}]*\}/g) ?? [], [], 'no secret with a default value');
  });
});
