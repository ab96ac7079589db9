// TRUST_PROXY: false, a hop count or a list of proxy addresses/CIDRs; `true` (believe any
// client's X-Forwarded-For) and anything unparseable stop start-up with a message saying what to write.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';

const trustProxy = (value: string | undefined) => loadConfig({ TRUST_PROXY: value }).trustProxy;

describe('TRUST_PROXY', () => {
  test('unset, empty, false and 0 trust no proxy', () => {
    for (const value of [undefined, '', 'false', 'FALSE', 'no', '0']) assert.equal(trustProxy(value), false, String(value));
  });

  test('a hop count', () => {
    assert.equal(trustProxy('1'), 1);
    assert.equal(trustProxy('2'), 2);
  });

  test('a list of addresses and CIDRs (IPv4 and IPv6) and proxy-addr names', () => {
    assert.deepEqual(trustProxy('10.0.0.0/8, 192.168.1.5,::1,fd00::/8,loopback'), [
      '10.0.0.0/8',
      '192.168.1.5',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
  });

  test('true is refused, telling the operator what to write instead', () => {
    for (const value of ['true', 'TRUE', 'yes']) {
      assert.throws(
        () => trustProxy(value),
        (err: Error) => err instanceof ConfigError && /TRUST_PROXY=1/.test(err.message) && /10\.0\.0\.0\/8/.test(err.message),
      );
    }
  });

  test('anything else is refused, naming the part not understood', () => {
    for (const [value, bad] of [
      ['10.0.0.0/33', '10.0.0.0/33'],
      ['proxy.internal', 'proxy.internal'],
      ['10.0.0.1,nonsense', 'nonsense'],
      ['::1/129', '::1/129'],
      ['1.2.3.4/8/8', '1.2.3.4/8/8'],
      ['99', ''],
    ]) {
      assert.throws(
        () => trustProxy(value),
        (err: Error) => err instanceof ConfigError && err.message.includes(bad),
        value,
      );
    }
  });
});
