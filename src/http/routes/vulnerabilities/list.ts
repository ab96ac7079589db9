// GET /v1/vulnerabilities
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listVulnerabilities } from '../../../domain/vulnerabilities/list.ts';
import {
  DEFAULT_PAGE_SIZE,
  FIX_AVAILABLE,
  PAGE_SIZES,
  VULNERABILITY_LIST_FIELDS,
  type VulnerabilityListField,
} from '../../../domain/vulnerabilities/shape.ts';
import { SEVERITIES, VULNERABILITY_SOURCES, VULNERABILITY_STATUSES } from '../../../shared/vocabulary.ts';
import { requestContext } from '../../plugins/auth.ts';
import { sendEnvelope } from '../../reply.ts';
import { Meta, v1Errors } from '../../schemas/common.ts';
import { enumList, parseList } from '../../schemas/lists.ts';
import type { RouteDeps } from '../deps.ts';
import { VulnerabilitySummary } from './schemas.ts';

/** The longest cursor accepted: an issued one is a few hundred characters at most. */
const MAX_CURSOR_LENGTH = 1024;

const Query = Type.Object(
  {
    status: Type.Optional(enumList(VULNERABILITY_STATUSES, 'Findings with any of these statuses.')),
    severity: Type.Optional(enumList(SEVERITIES, 'Findings with any of these severities.')),
    source: Type.Optional(enumList(VULNERABILITY_SOURCES, 'Findings from any of these sources.')),
    fixAvailable: Type.Optional(
      enumList(FIX_AVAILABLE, 'Whether a fix is available; findings with no recorded answer match neither value.'),
    ),
    count: Type.Optional(
      Type.Integer({ enum: [...PAGE_SIZES], default: DEFAULT_PAGE_SIZE, description: 'Page size: 50 or 100 (default 50).' }),
    ),
    nextCursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_CURSOR_LENGTH,
        description: 'meta.nextCursor of the previous page, with the same filters; omit on the first page.',
      }),
    ),
    fields: Type.Optional(enumList(VULNERABILITY_LIST_FIELDS, 'Optional fields to include.')),
  },
  { additionalProperties: false },
);

const PageMeta = Type.Object({
  ...Meta.properties,
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Cursor of the next page; null on the last page.' }),
  totalCount: Type.Integer({ description: 'Findings matching the filters, across all pages.' }),
});

export default function listVulnerabilitiesRoute(app: FastifyInstance, { system, answers, warm }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/vulnerabilities',
    {
      schema: {
        operationId: 'listVulnerabilities',
        tags: ['vulnerabilities'],
        summary: 'List vulnerability findings, newest first, one page at a time',
        description:
          'Ordered by firstSeen descending, then vulnerabilityId. Pass meta.nextCursor back as nextCursor with the same filters until it is null. A cursor altered or reused with other filters answers 400 validation_failed naming nextCursor.',
        security: [{ bearerAuth: ['vulnerability:read'] }],
        querystring: Query,
        response: {
          200: Type.Object(
            { data: Type.Array(VulnerabilitySummary), meta: PageMeta },
            { description: 'One page of matching findings, with the cursor of the next page.' },
          ),
          ...v1Errors(),
        },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const page = await listVulnerabilities({
        ctx: requestContext(system, request),
        input: {
          status: parseList(query.status),
          severity: parseList(query.severity),
          source: parseList(query.source),
          fixAvailable: parseList(query.fixAvailable),
          count: query.count,
          nextCursor: query.nextCursor,
          fields: parseList<VulnerabilityListField>(query.fields),
        },
      });
      const meta = { nextCursor: page.nextCursor, totalCount: page.totalCount };
      return sendEnvelope(request, reply, { cache: system.cache, answers, warm }, page, page.data, meta);
    },
  );
}
