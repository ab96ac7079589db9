// What every write shares: one Idempotency-Key per invocation (the user's, or a new one), sent
// on every retry the SDK makes; a note when the service replayed an earlier answer; and the key
// attached to the error when the write fails, so the report can tell the user how to retry safely.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { UsageError, type OptionSpec, type ParsedValues } from '../args.ts';
import type { Context } from '../context.ts';
import { InterruptedError } from '../interrupt.ts';
import { ComplianceError, type ResponseInfo, type WriteOptions } from '../sdk.ts';
import { IDEMPOTENCY_KEY } from '../vocabulary.ts';

export const idempotencyKeyOption: OptionSpec = {
  name: 'idempotency-key',
  kind: 'string',
  valueName: 'KEY',
  help: 'Idempotency-Key (1-128 of A-Za-z0-9._~-); default: a new random key, printed when the write fails',
};

export async function sendWrite<T extends { response: ResponseInfo }>(
  ctx: Context,
  values: ParsedValues,
  write: (options: WriteOptions) => Promise<T>,
): Promise<T> {
  const key = (values['idempotency-key'] as string | undefined) ?? randomUUID();
  if (!IDEMPOTENCY_KEY.test(key)) throw new UsageError('--idempotency-key takes 1-128 characters of A-Z a-z 0-9 . _ ~ -');
  try {
    const result = await write({ idempotencyKey: key, signal: ctx.signal });
    if (result.response.idempotentReplayed) {
      ctx.io.err(`note: answered from the stored response of an earlier request with idempotency key ${key}; nothing was changed again`);
    }
    return result;
  } catch (err) {
    if (err instanceof ComplianceError || err instanceof InterruptedError) err.idempotencyKey = key;
    throw err;
  }
}

/** A JSON object from a file, or from stdin for `-`. */
export async function readJsonObject(source: string, ctx: Context, flag: string): Promise<Record<string, unknown>> {
  const value = await readJson(source, ctx, flag);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${flag}: expected a JSON object`);
  return value as Record<string, unknown>;
}

/** A JSON value from a file, or from stdin for `-`. */
export async function readJson(source: string, ctx: Context, flag: string): Promise<unknown> {
  let text: string;
  try {
    text = source === '-' ? await readAll(ctx.io.stdin) : fs.readFileSync(source, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${source}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${flag}: ${source === '-' ? 'stdin' : source} is not JSON: ${(err as Error).message}`);
  }
  return value;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
  return text;
}
