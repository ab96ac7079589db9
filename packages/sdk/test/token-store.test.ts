// The pluggable token store against the scripted server: a stored token that is still good is
// used without a token request; one that is expired or about to expire is replaced (one request,
// saved); one the service refuses as stale is renewed once and never used again; a revoked
// credential empties the store; a failing store never fails a call; and concurrent first calls
// load once and request at most one token.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AuthenticationError,
  ComplianceClient,
  type ClientOptions,
  type StoredToken,
  type TokenStore,
  type TokenStoreOperation,
} from '../src/index.ts';
import { fastRetries, issueToken, oauthError, slow, startScriptedServer, v1Error, type ScriptedServer } from './support/scripted-server.ts';

/** A store in memory that counts its calls; `delayMs` makes load and save asynchronous and slow. */
class MemoryStore implements TokenStore {
  token: StoredToken | undefined;
  loads = 0;
  saves: StoredToken[] = [];
  clears = 0;
  delayMs: number;
  constructor(token?: StoredToken, delayMs = 0) {
    this.token = token;
    this.delayMs = delayMs;
  }
  async load() {
    this.loads++;
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    return this.token;
  }
  async save(token: StoredToken) {
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    this.saves.push(token);
    this.token = token;
  }
  clear() {
    this.clears++;
    this.token = undefined;
  }
}

const HOUR = 3_600_000;
const stored = (accessToken: string, expiresInMs: number, extra: Partial<StoredToken> = {}): StoredToken => ({
  accessToken,
  expiresAt: Date.now() + expiresInMs,
  scope: 'vulnerability:read',
  tokenType: 'Bearer',
  ...extra,
});

describe('token store (scripted server)', () => {
  let server: ScriptedServer;
  const client = (options: Partial<ClientOptions> = {}) =>
    new ComplianceClient({ baseUrl: server.url, clientId: 'cds_id_test', clientSecret: 'cds_secret_test', ...fastRetries, ...options });
  const bearers = () => server.requests.map((r) => r.headers.authorization);

  before(async () => {
    server = await startScriptedServer();
  });
  after(() => server.close());
  afterEach(() => server.reset());

  test('a stored token that is still good is used: no token request, nothing saved', async () => {
    const store = new MemoryStore(stored('kept', HOUR / 2));
    const c = client({ tokenStore: store });
    assert.equal(store.loads, 0, 'nothing is loaded before the first call');
    for (let i = 0; i < 3; i++) await c.frameworks.list();
    assert.equal(server.tokenRequests.length, 0);
    assert.deepEqual(bearers(), ['Bearer kept', 'Bearer kept', 'Bearer kept']);
    assert.equal(await c.auth.getAccessToken(), 'kept');
    assert.equal(store.loads, 1, 'the store is asked once');
    assert.equal(store.saves.length, 0);
  });

  test('a synchronous store works as well', async () => {
    let saved: StoredToken | undefined;
    const c = client({ tokenStore: { load: () => stored('sync', HOUR), save: (t) => void (saved = t) } });
    await c.controls.list();
    assert.equal(server.tokenRequests.length, 0);
    assert.deepEqual(bearers(), ['Bearer sync']);
    assert.equal(saved, undefined);
  });

  for (const [label, expiresInMs] of [
    ['expired', -1000],
    ['within the refresh skew of expiring', 30_000],
  ] as const) {
    test(`a stored token ${label} is replaced: one token request, the new token saved`, async () => {
      const store = new MemoryStore(stored('old', expiresInMs));
      const c = client({ tokenStore: store });
      const before = Date.now();
      await c.frameworks.list();
      await c.frameworks.list();
      assert.equal(server.tokenRequests.length, 1);
      assert.deepEqual(bearers(), ['Bearer tok-1', 'Bearer tok-1']);
      assert.equal(store.saves.length, 1);
      const saved = store.token!;
      assert.equal(saved.accessToken, 'tok-1');
      assert.equal(saved.tokenType, 'Bearer');
      assert.equal(saved.scope, 'vulnerability:read vulnerability:write');
      assert.ok(saved.issuedAt! >= before && saved.issuedAt! <= Date.now());
      assert.equal(saved.expiresAt, saved.issuedAt! + 3600 * 1000, 'expiresAt is epoch ms: request time + expires_in');
    });
  }

  test('the refresh skew of a stored token is capped at half its lifetime, as in memory', async () => {
    // A 2 s token requested 0.5 s ago: 1.5 s left, renewed 1 s before expiry, so still good.
    const now = Date.now();
    const store = new MemoryStore({ accessToken: 'short', expiresAt: now + 1500, issuedAt: now - 500, scope: '', tokenType: 'Bearer' });
    await client({ tokenStore: store }).frameworks.list();
    assert.equal(server.tokenRequests.length, 0);
    // Without issuedAt the whole skew (60 s) applies: the same token is renewed.
    const store2 = new MemoryStore({ accessToken: 'short', expiresAt: now + 1500, scope: '', tokenType: 'Bearer' });
    await client({ tokenStore: store2 }).frameworks.list();
    assert.equal(server.tokenRequests.length, 1);
    assert.equal(store2.token?.accessToken, 'tok-1');
  });

  for (const code of ['token_stale', 'unauthorized'] as const) {
    test(`a stored token refused with 401 ${code}: one renewal, the retry succeeds, the new token is saved and used from then on`, async () => {
      const store = new MemoryStore(stored('stale', HOUR));
      server.script(v1Error(401, code));
      const c = client({ tokenStore: store });
      const res = await c.policies.list();
      assert.equal(res.response.attempts, 2);
      assert.equal(server.tokenRequests.length, 1);
      assert.equal(store.token?.accessToken, 'tok-1');
      assert.equal(store.saves.length, 1);
      await c.policies.list();
      assert.deepEqual(bearers(), ['Bearer stale', 'Bearer tok-1', 'Bearer tok-1'], 'the refused token is not used again');
      assert.equal(store.loads, 1, 'the store is not asked again (it would hand back the refused token)');
      assert.equal(server.tokenRequests.length, 1);
    });
  }

  test('concurrent calls refused with the same stored token renew it once', async () => {
    const store = new MemoryStore(stored('stale', HOUR));
    server.scriptToken(slow(100, issueToken('fresh')));
    server.script(...Array.from({ length: 5 }, () => v1Error(401, 'token_stale')));
    const c = client({ tokenStore: store });
    await Promise.all(Array.from({ length: 5 }, () => c.tests.list()));
    assert.equal(server.tokenRequests.length, 1);
    assert.equal(store.loads, 1);
    assert.deepEqual(
      store.saves.map((t) => t.accessToken),
      ['fresh'],
    );
    assert.ok(server.requests.slice(5).every((r) => r.headers.authorization === 'Bearer fresh'));
  });

  test('401 token_revoked on a stored token empties the store; the error is final', async () => {
    const store = new MemoryStore(stored('revoked', HOUR));
    server.script(v1Error(401, 'token_revoked'));
    await assert.rejects(
      client({ tokenStore: store }).frameworks.list(),
      (err: unknown) => err instanceof AuthenticationError && err.code === 'token_revoked',
    );
    assert.equal(store.clears, 1);
    assert.equal(store.token, undefined);
    assert.equal(server.tokenRequests.length, 0);
    assert.equal(server.requests.length, 1);
  });

  test('invalid_client at the token endpoint empties the store; a store without clear() is left alone', async () => {
    const store = new MemoryStore(stored('expired', -1));
    server.scriptToken(oauthError(401, 'invalid_client'));
    await assert.rejects(
      client({ tokenStore: store }).frameworks.list(),
      (err: unknown) => err instanceof AuthenticationError && err.code === 'invalid_client',
    );
    assert.equal(store.clears, 1);
    assert.equal(store.saves.length, 0);

    server.scriptToken(oauthError(401, 'invalid_client'));
    const loadOnly = { load: () => stored('expired', -1), save: () => assert.fail('nothing to save') };
    await assert.rejects(client({ tokenStore: loadOnly }).frameworks.list(), AuthenticationError);
  });

  test('a store that throws never breaks a call; onTokenStoreError is told which operation failed', async () => {
    const failures: Array<[TokenStoreOperation, string]> = [];
    const onTokenStoreError = (err: unknown, op: TokenStoreOperation) => void failures.push([op, (err as Error).message]);
    const broken: TokenStore = {
      load: () => {
        throw new Error('corrupt file');
      },
      save: async () => {
        throw new Error('disk full');
      },
      clear: () => Promise.reject(new Error('read-only')),
    };
    const c = client({ tokenStore: broken, onTokenStoreError });
    await c.frameworks.list();
    await c.frameworks.list();
    assert.equal(server.tokenRequests.length, 1);
    assert.deepEqual(failures, [
      ['load', 'corrupt file'],
      ['save', 'disk full'],
    ]);

    // token_revoked: the clear fails too; the caller still gets the API's error.
    server.script(v1Error(401, 'token_revoked'));
    await assert.rejects(c.frameworks.list(), (err: unknown) => err instanceof AuthenticationError && err.code === 'token_revoked');
    assert.deepEqual(failures.at(-1), ['clear', 'read-only']);

    // Without a handler, and with a handler that throws itself, the errors are swallowed.
    await client({ tokenStore: broken }).frameworks.list();
    await client({
      tokenStore: broken,
      onTokenStoreError: () => {
        throw new Error('handler bug');
      },
    }).frameworks.list();
    assert.equal(server.tokenRequests.length, 3);
  });

  test('a stored value that is not a token counts as nothing stored', async () => {
    const failures: TokenStoreOperation[] = [];
    for (const junk of [
      null,
      'tok',
      { accessToken: 'x' },
      { accessToken: 'x', expiresAt: 'tomorrow' },
      { accessToken: '', expiresAt: Date.now() + HOUR },
    ]) {
      const c = client({
        tokenStore: { load: () => junk as unknown as StoredToken, save: () => {} },
        onTokenStoreError: (_e, op) => void failures.push(op),
      });
      await c.frameworks.list();
    }
    assert.equal(server.tokenRequests.length, 5);
    assert.deepEqual(failures, ['load', 'load', 'load', 'load'], 'null is "nothing stored"; the others are reported');
  });

  test('concurrent first calls load once and use the stored token', async () => {
    const store = new MemoryStore(stored('shared', HOUR), 100);
    const c = client({ tokenStore: store });
    await Promise.all(Array.from({ length: 10 }, () => c.controls.list()));
    assert.equal(store.loads, 1);
    assert.equal(server.tokenRequests.length, 0);
    assert.ok(server.requests.every((r) => r.headers.authorization === 'Bearer shared'));
  });

  test('concurrent first calls with nothing stored: one load, one token request, one save', async () => {
    const store = new MemoryStore(undefined, 50);
    server.scriptToken(slow(100, issueToken('new')));
    const c = client({ tokenStore: store });
    await Promise.all(Array.from({ length: 10 }, () => c.controls.list()));
    assert.equal(store.loads, 1);
    assert.equal(server.tokenRequests.length, 1);
    assert.deepEqual(
      store.saves.map((t) => t.accessToken),
      ['new'],
    );
    assert.ok(server.requests.every((r) => r.headers.authorization === 'Bearer new'));
  });

  test('a renewal before expiry saves the new token; auth.requestToken saves nothing', async () => {
    const store = new MemoryStore();
    server.scriptToken(issueToken('short', 2), issueToken('next', 3600));
    const c = client({ tokenStore: store });
    await c.frameworks.list();
    await new Promise((r) => setTimeout(r, 1100));
    await c.frameworks.list();
    assert.deepEqual(
      store.saves.map((t) => t.accessToken),
      ['short', 'next'],
    );
    assert.equal(store.loads, 1);
    await c.auth.requestToken();
    assert.equal(store.saves.length, 2);
  });

  test('a tokenStore without load() and save() is refused', () => {
    assert.throws(() => client({ tokenStore: { load: () => undefined } as unknown as TokenStore }), TypeError);
    assert.throws(() => client({ tokenStore: { load: () => undefined, save: () => {}, clear: 1 } as unknown as TokenStore }), TypeError);
    assert.throws(
      () => client({ tokenStore: { load: () => undefined, save: () => {} }, onTokenStoreError: 'log' as unknown as () => void }),
      TypeError,
    );
  });
});
