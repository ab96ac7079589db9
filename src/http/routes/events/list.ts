// GET /v1/events: the change events feed (issue 15; an extension, see src/domain/events/list.ts).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { DEFAULT_EVENTS_PAGE_SIZE, listEvents, MAX_EVENTS_PAGE_SIZE, MAX_RESOURCE_ID_LENGTH } from '../../../domain/events/list.ts';
import { FEED_EVENT_TYPES, FeedEvent, type FeedEventType } from '../../../domain/events/schema.ts';
import { requestContext } from '../../plugins/auth.ts';
import { Meta, v1Errors } from '../../schemas/common.ts';
import { enumList, parseList } from '../../schemas/lists.ts';
import type { RouteDeps } from '../deps.ts';

/** The longest cursor accepted: an issued one is under a hundred characters. */
const MAX_CURSOR_LENGTH = 1024;

const Query = Type.Object(
  {
    types: Type.Optional(
      enumList(
        FEED_EVENT_TYPES,
        'Only events of these types; each needs the read scope of its resource. Default: every type the token may read.',
      ),
    ),
    resourceId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_RESOURCE_ID_LENGTH,
        description:
          'Only events about this resource: its ID exactly as the API shows it (a vulnerabilityId stays encoded, e.g. `api%23VUL-0001`).',
      }),
    ),
    count: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_EVENTS_PAGE_SIZE,
        default: DEFAULT_EVENTS_PAGE_SIZE,
        description: `Page size: 1 to ${MAX_EVENTS_PAGE_SIZE} (default ${DEFAULT_EVENTS_PAGE_SIZE}).`,
      }),
    ),
    nextCursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_CURSOR_LENGTH,
        description: 'meta.nextCursor of the previous page, with the same types and resourceId; omit to start from the oldest event kept.',
      }),
    ),
  },
  { additionalProperties: false },
);

const FeedMeta = Type.Object({
  ...Meta.properties,
  nextCursor: Type.String({
    description:
      'Never null: the position after this page. Store it and pass it back as nextCursor (with the same filters) to get the events committed since; on the last page it stays valid for later polls.',
  }),
  hasMore: Type.Boolean({ description: 'true when more events are already available: ask again at once; false: poll later.' }),
});

const DESCRIPTION = [
  'Extension (issue 15): the organization’s change events, in the order the changes committed. Every write — from the API, the console or the `cds` command — records its events in the same transaction as the change, so an event exists if and only if the change committed.',
  '',
  'Event types (`data` of each is documented in the response schema):',
  '- `vulnerability.created`: the finding as GET /v1/vulnerabilities/{vulnerabilityId} answers it;',
  '- `vulnerability.updated`: the changed fields, each with `before` and `after`;',
  '- `evidence.attachments_added`: the uploaded attachments;',
  '- `evidence.status_changed`: the evidence status before and after;',
  '- `control.status_changed` (computed): a write flipped the control’s compliance status; `cause` names the event that did;',
  '- `framework.progress_changed` (computed): a write changed the framework’s complianceProgress, before and after.',
  '`credential.created` and `credential.revoked` exist for administrators’ webhooks and are never in this feed.',
  '',
  'Polling: start without nextCursor, then always pass back `meta.nextCursor` (never null) with the same `types` and `resourceId`. While `hasMore` is true ask at once; otherwise poll later with the stored cursor. A poller that does so misses no event and sees none twice, across nodes and restarts. A cursor altered or reused with other filters answers 400 validation_failed naming nextCursor.',
  '',
  'Scopes and plan: each type needs the read (or write) scope of its resource (`vulnerability.*` → vulnerability:read, `evidence.*` → evidence:read, `control.*` → control:read, `framework.*` → framework:read) and the organization’s plan to include it. Without `types` the feed gives the types the token may read; naming a type it may not read answers 403 forbidden or plan_restricted.',
  '',
  'Retention: events are kept for EVENT_RETENTION_DAYS (30 by default); a cursor older than that continues from the oldest event kept.',
].join('\n');

export default function listEventsRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/events',
    {
      schema: {
        operationId: 'listEvents',
        tags: ['events'],
        summary: 'List change events in commit order, one page at a time (extension)',
        description: DESCRIPTION,
        security: [
          { bearerAuth: ['vulnerability:read'] },
          { bearerAuth: ['evidence:read'] },
          { bearerAuth: ['control:read'] },
          { bearerAuth: ['framework:read'] },
        ],
        querystring: Query,
        response: {
          200: Type.Object(
            { data: Type.Array(FeedEvent), meta: FeedMeta },
            { description: 'One page of events in commit order, with the cursor to continue from.' },
          ),
          ...v1Errors({
            400: 'validation_failed: a parameter is invalid (details name it), including an altered cursor or one issued for other filters (nextCursor)',
            403: 'forbidden (a type in `types` needs a scope the token lacks) or plan_restricted (the plan leaves that resource out)',
          }),
        },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const page = await listEvents({
        ctx: requestContext(system, request),
        input: {
          types: parseList<FeedEventType>(query.types),
          resourceId: query.resourceId,
          count: query.count,
          nextCursor: query.nextCursor,
        },
      });
      return reply.send({ data: page.data, meta: { requestId: request.id, nextCursor: page.nextCursor, hasMore: page.hasMore } });
    },
  );
}
