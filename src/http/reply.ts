import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResultCache } from '../domain/result-cache.ts';
import type { AnswerBytes } from './answer-bytes.ts';
import type { WarmReads } from './warm-reads.ts';
import type { Context, SystemContext } from '../domain/context.ts';
import { requestContext } from './plugins/auth.ts';

/** The success envelope: `{ data, meta: { requestId, …extra } }`. */
export function envelope<T>(request: FastifyRequest, data: T, extraMeta: Record<string, unknown> = {}) {
  return { data, meta: { requestId: request.id, ...extraMeta } };
}

/** What answering from kept bytes needs: the result cache that vouches for a result, and the bytes. */
export interface Answering {
  cache: ResultCache;
  answers: AnswerBytes;
  /** where the URL of an answer given from kept bytes is held for the next requests (warm-reads.ts) */
  warm?: WarmReads;
}

/**
 * Sends the envelope of `result` (what a read verb returned): `data` and `extraMeta` must be
 * derived from `result` alone. When the result cache shares `result` (a cached answer), its
 * envelope is serialized once by the route's response schema and its bytes kept; later requests
 * get those bytes with their own request ID, byte for byte what serializing again would give.
 */
export function sendEnvelope(
  request: FastifyRequest,
  reply: FastifyReply,
  { cache, answers, warm }: Answering,
  result: object,
  data: unknown,
  extraMeta: Record<string, unknown> = {},
): FastifyReply {
  if (!cache.shares(result)) return reply.send(envelope(request, data, extraMeta));
  const parts =
    answers.answer(result, request.id) ??
    answers.keep(result, request.id, (placeholderId) =>
      String(reply.serialize({ data, meta: { requestId: placeholderId, ...extraMeta } })),
    );
  // Held for the next requests only while its bytes are (an answer larger than the budget is not).
  if (warm && answers.has(result)) warm.hold(request, reply, result);
  return sendParts(reply, parts);
}

/**
 * Writes a 200 answer made of `parts` with the headers set so far, as Fastify's send would (Node
 * adds the same Date and Connection headers), in one write of the parts as they are. Fastify
 * still runs the onResponse hooks (metrics, logs) when the answer is finished.
 */
function sendParts(reply: FastifyReply, parts: Buffer[]): FastifyReply {
  let length = 0;
  for (const part of parts) length += part.length;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(length),
  });
  res.cork();
  for (const part of parts) res.write(part);
  res.end();
  return reply;
}

/**
 * Runs a read verb for the request's credential and sends its answer (sendEnvelope, the whole
 * answer as `data`).
 */
export async function replyRead<I, T extends object>(
  { system, answers, warm }: { system: SystemContext; answers: AnswerBytes; warm?: WarmReads },
  request: FastifyRequest,
  reply: FastifyReply,
  verb: (args: { ctx: Context; input: I }) => Promise<T>,
  input: I,
) {
  const data = await verb({ ctx: requestContext(system, request), input });
  return sendEnvelope(request, reply, { cache: system.cache, answers, warm }, data, data);
}
