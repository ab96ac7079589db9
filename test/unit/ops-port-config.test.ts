// OPS_PORT's default follows PORT (PORT + 6090), so a default install keeps 9090 and two nodes
// with different PORTs get different operations ports; OPS_PORT set or `off` wins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';

const opsPort = (env: Record<string, string>) => loadConfig(env).ops.port;

test('unset, OPS_PORT is PORT + 6090: 9090 for the default PORT', () => {
  assert.equal(opsPort({}), 9090);
  assert.equal(opsPort({ PORT: '3001' }), 9091);
  assert.equal(opsPort({ PORT: '8080' }), 14170);
  assert.equal(opsPort({ PORT: '0' }), 0, 'any free port for both');
});

test('set, OPS_PORT wins; off serves none', () => {
  assert.equal(opsPort({ PORT: '3001', OPS_PORT: '9100' }), 9100);
  assert.equal(opsPort({ PORT: '3001', OPS_PORT: 'off' }), undefined);
  assert.equal(opsPort({ PORT: '60000', OPS_PORT: '9100' }), 9100);
});

test('a PORT that leaves no room for the default asks for OPS_PORT', () => {
  assert.throws(
    () => loadConfig({ PORT: '60000' }),
    (err) => err instanceof ConfigError && /set OPS_PORT/.test(err.message),
  );
});
