// Suites whose engine is not configured (no TEST_DATABASE_URL or TEST_REDIS_URL) appear in the
// test runner's summary as skipped tests with the reason, not silently absent.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const fixture = path.join(import.meta.dirname, 'fixtures', 'engine-loop.ts');

async function runFixture(env: Record<string, string>) {
  const clean = { ...process.env };
  delete clean.TEST_DATABASE_URL;
  delete clean.TEST_REDIS_URL;
  delete clean.NODE_TEST_CONTEXT; // run as a top-level `node --test`, not as a child of this one
  const { stdout } = await promisify(execFile)(process.execPath, ['--test', '--test-reporter=tap', fixture], {
    env: { ...clean, ...env },
  });
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(stdout)?.[1]);
  return { stdout, pass: count('pass'), skipped: count('skipped') };
}

test('without PostgreSQL and Redis, their suites are counted as skipped, each with the reason', async () => {
  const r = await runFixture({});
  assert.equal(r.pass, 2, r.stdout);
  assert.equal(r.skipped, 2, r.stdout);
  assert.match(r.stdout, /postgres: not run # SKIP TEST_DATABASE_URL is not set/);
  assert.match(r.stdout, /redis: not run # SKIP TEST_REDIS_URL is not set/);
});

test('with both configured, every engine runs and nothing is skipped', async () => {
  // The URLs are not contacted by the fixture: only their presence decides the engine lists.
  const r = await runFixture({ TEST_DATABASE_URL: 'postgres://unused@127.0.0.1:1/x', TEST_REDIS_URL: 'redis://127.0.0.1:1' });
  assert.equal(r.pass, 4, r.stdout);
  assert.equal(r.skipped, 0, r.stdout);
});
