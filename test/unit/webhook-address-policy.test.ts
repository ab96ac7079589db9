// The webhook address policy (src/domain/webhooks/address-policy.ts): every forbidden range is
// refused in every spelling a client would connect to, and public addresses pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkEndpointUrl, forbiddenAddressReason } from '../../src/domain/webhooks/address-policy.ts';

const noLookup = async (host: string): Promise<string[]> => {
  throw new Error(`no DNS in this test (asked for ${host})`);
};

test('addresses of every forbidden range are refused, with the reason', () => {
  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['169.254.1.1', /link-local/],
    ['169.254.169.254', /metadata/],
    ['168.63.129.16', /metadata/],
    ['100.100.100.200', /metadata/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /broadcast/],
    ['192.0.2.10', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['::1', /loopback/],
    ['0:0:0:0:0:0:0:1', /loopback/],
    ['::0.0.0.1', /loopback/],
    ['FE80::1', /link-local/],
    ['::', /unspecified/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['fc00::1', /unique-local/],
    ['fd12:3456::1', /unique-local/],
    ['fd00:ec2::254', /metadata/],
    ['ff02::1', /multicast/],
    ['fec0::1', /site-local/],
    ['2001:db8::1', /documentation/],
    ['64:ff9b:1::1', /NAT64/],
  ];
  for (const [ip, reason] of refused) assert.match(forbiddenAddressReason(ip) ?? 'allowed', reason, ip);
});

test('IPv4 inside IPv6 is judged as the IPv4 address it reaches', () => {
  const refused: [string, RegExp][] = [
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:7f00:1', /loopback/],
    ['[::ffff:127.0.0.1]', /loopback/],
    ['0:0:0:0:0:ffff:a9fe:a9fe', /metadata/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:192.168.0.1', /private/],
    ['::127.0.0.1', /loopback/],
    ['64:ff9b::169.254.169.254', /metadata/],
    ['64:ff9b::a00:1', /private/],
    ['2002:7f00:1::', /loopback/],
    ['2002:c0a8:101::1', /private/],
  ];
  for (const [ip, reason] of refused) assert.match(forbiddenAddressReason(ip) ?? 'allowed', reason, ip);
  assert.equal(forbiddenAddressReason('::ffff:8.8.8.8'), undefined, 'a mapped public address is public');
  assert.equal(forbiddenAddressReason('64:ff9b::808:808'), undefined, 'NAT64 of a public address is public');
  assert.equal(forbiddenAddressReason('1.2.3'), undefined, 'the short form 1.2.3 is 1.2.0.3, a public address');
});

test('odd IPv4 spellings are read as a client would read them', () => {
  for (const ip of ['0x7f.1', '017700000001', '2130706433', '127.1', '0x7f000001', '0177.0.0.1']) {
    assert.match(forbiddenAddressReason(ip) ?? 'allowed', /loopback/, ip);
  }
  assert.match(forbiddenAddressReason('0xa9.0xfe.0xa9.0xfe') ?? 'allowed', /metadata/);
});

test('public addresses are allowed; what is not an address is refused', () => {
  for (const ip of [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::1',
  ]) {
    assert.equal(forbiddenAddressReason(ip), undefined, ip);
  }
  for (const junk of ['', 'example.com', '1.2.3.256', '::g', '1.2.3.4.5']) assert.ok(forbiddenAddressReason(junk), junk);
});

test('endpoint URLs: literal addresses in every spelling are refused at registration', async () => {
  for (const url of [
    'http://127.0.0.1/hook',
    'http://0x7f.1/hook',
    'http://017700000001/hook',
    'http://2130706433/',
    'http://[::1]:8080/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'https://10.0.0.5/hook',
    'http://[fe80::1]/',
  ]) {
    const issues = await checkEndpointUrl(url, false, noLookup);
    assert.equal(issues.length, 1, url);
    assert.equal(issues[0].field, 'url');
    assert.match(issues[0].message, /public addresses/, url);
  }
});

test('endpoint URLs: localhost names are refused without asking DNS', async () => {
  for (const url of ['http://localhost/hook', 'http://localhost./hook', 'http://LOCALHOST:3000/', 'http://api.localhost/']) {
    const [issue] = await checkEndpointUrl(url, false, noLookup);
    assert.match(issue?.message ?? '', /loopback/, url);
  }
});

test('endpoint URLs: a name is judged by every address it resolves to', async () => {
  const lookup = async (host: string) => (host === 'evil.example' ? ['93.184.216.34', '10.0.0.7'] : ['93.184.216.34']);
  const [issue] = await checkEndpointUrl('https://evil.example/hook', false, lookup);
  assert.match(issue.message, /resolves to 10\.0\.0\.7.*private/);
  assert.deepEqual(await checkEndpointUrl('https://good.example/hook', false, lookup), []);
  const [unresolved] = await checkEndpointUrl('https://nowhere.example/', false, noLookup);
  assert.match(unresolved.message, /could not be resolved/);
});

test('endpoint URLs: shape rules hold even when private addresses are allowed', async () => {
  const cases: [string, RegExp][] = [
    ['ftp://example.com/', /http/],
    ['not a url', /absolute/],
    ['/relative/path', /absolute/],
    ['https://user:pass@example.com/', /user name or password/],
    ['https://example.com/hook#frag', /fragment/],
    ['https://example.com/hook#', /fragment/],
    [`https://example.com/${'a'.repeat(2100)}`, /at most 2048/],
  ];
  for (const allow of [false, true]) {
    for (const [url, message] of cases) {
      const [issue] = await checkEndpointUrl(url, allow, noLookup);
      assert.match(issue?.message ?? 'accepted', message, url);
    }
  }
});

test('endpoint URLs: with private addresses allowed, loopback and private hosts are accepted', async () => {
  for (const url of [
    'http://127.0.0.1:9000/hook',
    'http://localhost:3000/',
    'http://[::1]/',
    'http://10.0.0.5/',
    'http://intranet.local/',
  ]) {
    assert.deepEqual(await checkEndpointUrl(url, true, noLookup), [], url);
  }
  assert.deepEqual(await checkEndpointUrl('https://93.184.216.34/hook', false, noLookup), []);
});
