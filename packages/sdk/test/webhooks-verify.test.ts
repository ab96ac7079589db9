// webhooks.verify against requests signed by the `standardwebhooks` package (the reference
// implementation the service signs with): a valid request in every body and header form a receiver
// has, and each way a request must be refused (tampered body, wrong secret, stale and future
// timestamps, missing or malformed headers), several signatures and rotated secrets.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { ComplianceClient, WebhookVerificationError, webhooks, type WebhookEvent, type WebhookVerificationFailure } from '../src/index.ts';

const newSecret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;
const SECRET = newSecret();
const OTHER = newSecret();
const NOW = 1_764_000_000_000;
const nowSec = Math.floor(NOW / 1000);
const now = () => NOW;

const event = {
  eventId: 'evt_01JD6Z8QK4V9W3X2Y1Z0ABCDEF',
  type: 'evidence.status_changed',
  occurredAt: NOW - 1234,
  resourceType: 'evidence',
  resourceId: '5f0c7a52-1d1e-4c55-9a35-0e8f5c1b2a10',
  // Non-ASCII text: the signed bytes are UTF-8, whichever form the body arrives in.
  data: { before: 'not_uploaded', after: 'uploaded', note: 'Contrôle d’accès — revue T4 ✓' },
};
// Spaced as a server might send it: the signature is over these bytes, not over a re-serialization.
const BODY = JSON.stringify(event, null, 1);

/** The headers `standardwebhooks` produces for `body`, signed with each of `secrets` at `timestamp` (seconds). */
function signed(body: string, secrets: string[], timestamp = nowSec, id = event.eventId): Record<string, string> {
  const signatures = secrets.map((s) => new Webhook(s).sign(id, new Date(timestamp * 1000), body));
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}

async function refused(promise: Promise<unknown>, reason: WebhookVerificationFailure, message?: RegExp): Promise<WebhookVerificationError> {
  const err = await promise.then(
    () => assert.fail(`verified, but should have been refused with ${reason}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof WebhookVerificationError, `a WebhookVerificationError, not ${String(err)}`);
  assert.equal(err.reason, reason, err.message);
  if (message) assert.match(err.message, message);
  return err;
}

describe('webhooks.verify', () => {
  test('a valid request: the parsed event, from a string, a Buffer, a Uint8Array and an ArrayBuffer', async () => {
    const headers = signed(BODY, [SECRET]);
    const bytes = Buffer.from(BODY, 'utf8');
    for (const body of [BODY, bytes, new Uint8Array(bytes), bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)]) {
      const verified: WebhookEvent = await webhooks.verify(body, headers, SECRET, { now });
      assert.deepEqual(verified, event);
    }
    // The reference implementation agrees it is valid (the test's signing is not self-confirming).
    assert.deepEqual(new Webhook(SECRET).verify(BODY, signed(BODY, [SECRET], Math.floor(Date.now() / 1000))), event);
  });

  test('headers as a fetch Headers, as node:http lower-case names, and in any case', async () => {
    const headers = signed(BODY, [SECRET]);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.replace(/(^|-)[a-z]/g, (m) => m.toUpperCase()), v]));
    assert.ok('Webhook-Id' in upper);
    for (const h of [new Headers(headers), headers, upper]) assert.deepEqual(await webhooks.verify(BODY, h, SECRET, { now }), event);
  });

  test('usable without a client, on the class, and as client.webhooks', async () => {
    const headers = signed(BODY, [SECRET]);
    const client = new ComplianceClient({ baseUrl: 'http://127.0.0.1:9', clientId: 'id', clientSecret: 'secret' });
    assert.equal(ComplianceClient.webhooks, webhooks);
    assert.deepEqual(await client.webhooks.verify(BODY, headers, SECRET, { now }), event);
  });

  test('the secret without its whsec_ prefix works too', async () => {
    assert.deepEqual(await webhooks.verify(BODY, signed(BODY, [SECRET]), SECRET.slice('whsec_'.length), { now }), event);
  });

  test('a tampered body is refused: one character, re-serialized JSON, an appended byte', async () => {
    const headers = signed(BODY, [SECRET]);
    const tampered = [
      BODY.replace('"uploaded"', '"approved"'),
      JSON.stringify(JSON.parse(BODY)), // same data, other bytes: what a receiver that parsed the body first would pass
      `${BODY} `,
    ];
    for (const body of tampered) await refused(webhooks.verify(body, headers, SECRET, { now }), 'no_matching_signature', /body changed/);
  });

  test('a changed webhook-id or webhook-timestamp is refused (both are signed)', async () => {
    const headers = signed(BODY, [SECRET]);
    await refused(
      webhooks.verify(BODY, { ...headers, 'webhook-id': 'evt_01JD6Z8QK4V9W3X2Y1Z0ABCDEG' }, SECRET, { now }),
      'no_matching_signature',
    );
    await refused(webhooks.verify(BODY, { ...headers, 'webhook-timestamp': String(nowSec - 1) }, SECRET, { now }), 'no_matching_signature');
  });

  test('a wrong secret is refused', async () => {
    const err = await refused(webhooks.verify(BODY, signed(BODY, [SECRET]), OTHER, { now }), 'no_matching_signature', /wrong secret/);
    assert.equal(err.header, 'webhook-signature');
  });

  test('timestamps: 5 minutes either way is accepted, one second more is stale or in the future', async () => {
    for (const offset of [-300, 300]) {
      assert.deepEqual(await webhooks.verify(BODY, signed(BODY, [SECRET], nowSec + offset), SECRET, { now }), event);
    }
    await refused(webhooks.verify(BODY, signed(BODY, [SECRET], nowSec - 301), SECRET, { now }), 'timestamp_too_old', /301 s in the past/);
    await refused(webhooks.verify(BODY, signed(BODY, [SECRET], nowSec + 301), SECRET, { now }), 'timestamp_too_new', /301 s in the future/);
    // A day-old capture replayed with its valid signature.
    await refused(webhooks.verify(BODY, signed(BODY, [SECRET], nowSec - 86_400), SECRET, { now }), 'timestamp_too_old');
    // The tolerance is an option; the default clock is Date.now.
    assert.deepEqual(await webhooks.verify(BODY, signed(BODY, [SECRET], nowSec - 3600), SECRET, { now, toleranceSec: 3600 }), event);
    assert.deepEqual(await webhooks.verify(BODY, signed(BODY, [SECRET], Math.floor(Date.now() / 1000)), SECRET), event);
  });

  test('missing headers are named', async () => {
    const headers = signed(BODY, [SECRET]);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const without = { ...headers };
      delete (without as Record<string, string>)[name];
      const err = await refused(webhooks.verify(BODY, without, SECRET, { now }), 'missing_header', new RegExp(name));
      assert.equal(err.header, name);
      await refused(webhooks.verify(BODY, { ...headers, [name]: '' }, SECRET, { now }), 'missing_header');
    }
    await refused(webhooks.verify(BODY, new Headers(), SECRET, { now }), 'missing_header');
  });

  test('malformed headers: a timestamp that is not whole seconds, no v1 entry, only other schemes', async () => {
    const headers = signed(BODY, [SECRET]);
    for (const timestamp of ['abc', '1764000000.5', '-1764000000', `${nowSec}000`.repeat(2)]) {
      await refused(webhooks.verify(BODY, { ...headers, 'webhook-timestamp': timestamp }, SECRET, { now }), 'invalid_header');
    }
    for (const signature of ['garbage', 'v2,abc', `v1a,${headers['webhook-signature'].slice(3)}`, 'v1,!!!!', 'v1,']) {
      await refused(webhooks.verify(BODY, { ...headers, 'webhook-signature': signature }, SECRET, { now }), 'invalid_header', /v1/);
    }
    await refused(webhooks.verify(BODY, { ...headers, 'webhook-signature': `v1,${'A'.repeat(5000)}` }, SECRET, { now }), 'invalid_header');
  });

  test('several signatures: any v1 entry that matches is enough, whatever its place and the other schemes around it', async () => {
    const mine = signed(BODY, [SECRET])['webhook-signature'];
    const others = signed(BODY, [OTHER, newSecret()])['webhook-signature'];
    for (const list of [`${others} ${mine}`, `${mine} ${others}`, `v1a,AAAA ${mine}`]) {
      assert.deepEqual(await webhooks.verify(BODY, { ...signed(BODY, [SECRET]), 'webhook-signature': list }, SECRET, { now }), event);
    }
    await refused(
      webhooks.verify(BODY, { ...signed(BODY, [SECRET]), 'webhook-signature': others }, SECRET, { now }),
      'no_matching_signature',
    );
  });

  test('repeated signature headers (node:http arrays, fetch Headers joined) are one list', async () => {
    const [a, b] = [signed(BODY, [OTHER])['webhook-signature'], signed(BODY, [SECRET])['webhook-signature']];
    const base = signed(BODY, [SECRET]);
    assert.deepEqual(await webhooks.verify(BODY, { ...base, 'webhook-signature': [a, b] }, SECRET, { now }), event);
    const h = new Headers(base);
    h.set('webhook-signature', a);
    h.append('webhook-signature', b);
    assert.deepEqual(await webhooks.verify(BODY, h, SECRET, { now }), event);
    await refused(
      webhooks.verify(BODY, { ...base, 'webhook-id': [base['webhook-id'], 'evt_other'] }, SECRET, { now }),
      'invalid_header',
      /more than once/,
    );
  });

  test('secret rotation: the receiver holds both secrets, the service signs with one or both', async () => {
    const previous = SECRET;
    const current = newSecret();
    // During the overlap the service signs with both; before it only the previous, after it only the current.
    const bothSigned = signed(BODY, [current, previous]);
    const previousOnly = signed(BODY, [previous]);
    const currentOnly = signed(BODY, [current]);
    for (const headers of [bothSigned, previousOnly, currentOnly]) {
      assert.deepEqual(await webhooks.verify(BODY, headers, [current, previous], { now }), event);
      assert.deepEqual(await webhooks.verify(BODY, headers, [previous, current], { now }), event);
    }
    // A receiver that has moved to the new secret alone accepts the overlap's requests and refuses the old-only ones.
    assert.deepEqual(await webhooks.verify(BODY, bothSigned, current, { now }), event);
    await refused(webhooks.verify(BODY, previousOnly, current, { now }), 'no_matching_signature', /the secret/);
    await refused(webhooks.verify(BODY, previousOnly, [current, OTHER], { now }), 'no_matching_signature', /any of the 2 secrets/);
  });

  test('a parsed body, a secret that is not one, or a bad tolerance is a TypeError (a programming error)', async () => {
    const headers = signed(BODY, [SECRET]);
    await assert.rejects(
      webhooks.verify(JSON.parse(BODY), headers, SECRET, { now }),
      (e: unknown) => e instanceof TypeError && /express\.raw/.test(e.message),
    );
    for (const secret of ['whsec_', 'whsec_not*base64', [], [SECRET, 42 as unknown as string]]) {
      await assert.rejects(webhooks.verify(BODY, headers, secret, { now }), TypeError);
    }
    await assert.rejects(webhooks.verify(BODY, headers, SECRET, { now, toleranceSec: -1 }), TypeError);
  });

  test('a signed body that is not a JSON event is refused as invalid_payload', async () => {
    for (const body of ['not json', '[1,2]', '{"no":"type"}']) {
      await refused(webhooks.verify(body, signed(body, [SECRET]), SECRET, { now }), 'invalid_payload');
    }
  });
});
