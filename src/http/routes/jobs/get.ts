// GET /v1/jobs/{jobId} (an extension, issue 36): bulk work accepted with 202, followed to its end.
// Never served from the answer caches: a job moves without any data version moving.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { getJob } from '../../../domain/jobs/get.ts';
import { documentedJob, Job } from '../../schemas/scanner-imports.ts';
import { requestContext } from '../../plugins/auth.ts';
import { envelope } from '../../reply.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import type { RouteDeps } from '../deps.ts';

const Params = Type.Object(
  { jobId: Type.String({ minLength: 1, maxLength: 64, pattern: '^job_[0-9a-f-]{36}$', description: 'The job’s ID (`job_<uuid>`).' }) },
  { additionalProperties: false },
);

export default function getJobRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/jobs/:jobId',
    {
      schema: {
        operationId: 'getJob',
        tags: ['jobs'],
        summary: 'Follow a job (extension)',
        description:
          'A job of the caller’s organization: bulk work the service accepted with `202 Accepted` and runs in the background (an import above IMPORT_JOB_THRESHOLD_BYTES, or sent with `Prefer: respond-async`). ' +
          'Its `status` goes `queued`, `running`, then `succeeded` with `result` (what the synchronous request answers in `data`) or `failed` with `error` (the `error` object the synchronous request answers). ' +
          'Readable for 24 hours after it finished, then not found. Needs the read scope of what the job writes (an import: vulnerability:read).',
        security: [{ bearerAuth: ['vulnerability:read'] }],
        params: Params,
        response: {
          200: Envelope(Job, 'The job as it is now.'),
          ...v1Errors({ 404: 'not_found: no job with this ID in the organization, or it finished more than 24 hours ago' }),
        },
      },
    },
    async (request, reply) => {
      const job = await getJob({ ctx: requestContext(system, request), input: { id: request.params.jobId } });
      return reply.header('Cache-Control', 'no-store').send(envelope(request, documentedJob(job)));
    },
  );
}
