// A start with a setting that weakens safety on says so in one warning line per setting: private
// webhook addresses allowed, a proxy trusted by hop count. A start without them warns of nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, waitForOutput } from '../harness/process.ts';

const warningLines = (stdout: string) =>
  stdout.split('\n').filter((line) => line.includes('"level":40') && /WEBHOOKS_ALLOW_PRIVATE_ADDRESSES|TRUST_PROXY/.test(line));

describe('start-up warnings', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('sqlite');
  });
  after(async () => {
    await database?.drop();
  });

  const startAndRead = async (env: Record<string, string>) => {
    const server = await startServerProcess({ database, env: { LOG_FORMAT: 'json', ...env } });
    try {
      return await waitForOutput(server, /"msg":"Ready: /);
    } finally {
      await server.stop();
    }
  };

  it('one line for private webhook addresses and one for a hop-count proxy', async () => {
    const out = await startAndRead({ WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true', TRUST_PROXY: '2' });
    const lines = warningLines(out);
    assert.equal(lines.length, 2, out);
    assert.match(lines[0], /WEBHOOKS_ALLOW_PRIVATE_ADDRESSES is on: .*local development only/);
    assert.match(lines[1], /TRUST_PROXY=2 believes the last 2 hop\(s\) of X-Forwarded-For/);
  });

  it('none for the defaults or a proxy named by its address', async () => {
    for (const env of [{}, { TRUST_PROXY: '10.0.0.0/8' }] as Record<string, string>[]) {
      const out = await startAndRead(env);
      assert.deepEqual(warningLines(out), [], JSON.stringify(env));
    }
  });
});
