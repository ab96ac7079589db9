// PATCH /v1/controls/{controlId} (extension)
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { updateControl } from '../../../domain/controls/update.ts';
import { UpdateControlBody } from '../../../domain/controls/write-schema.ts';
import { requestContext } from '../../plugins/auth.ts';
import { sendOutcome, WriteHeaders, writeGuards } from '../../idempotency.ts';
import { Envelope, v1Errors } from '../../schemas/common.ts';
import { idParams } from '../../schemas/artifacts.ts';
import type { RouteDeps } from '../deps.ts';
import { ControlDetail } from './schemas.ts';

const Params = idParams('controlId', 'ID of the control.');

export default function updateControlRoute(app: FastifyInstance, { system }: RouteDeps) {
  app.withTypeProvider<TypeBoxTypeProvider>().patch(
    '/v1/controls/:controlId',
    {
      preValidation: writeGuards('control'),
      schema: {
        operationId: 'updateControl',
        tags: ['controls'],
        summary: 'Change a control’s scope (with its reason) or assignees (extension)',
        description:
          'Out of scope needs an `outOfScopeReason` and stamps `markedOutOfScopeBy` with the credential; back in scope clears both. `assigneeEmails` replaces the assignees (the first is primary). An empty body is refused; a body that changes nothing writes nothing. Records `control.updated` and the computed `control.status_changed` / `framework.progress_changed` events in the same transaction. Answers the control as GET does. Idempotent under `Idempotency-Key` like the other writes.',
        security: [{ bearerAuth: ['control:write'] }],
        headers: WriteHeaders,
        params: Params,
        body: UpdateControlBody,
        response: {
          200: Envelope(ControlDetail, 'The control after the update, as GET returns it (default fields).'),
          ...v1Errors({
            400: 'validation_failed (details name the field: `outOfScopeReason` when a move needs or refuses one), or idempotency_key_required',
            404: 'not_found: no control with this ID in the organization',
            409: 'idempotency_key_reused (same key, different body) or idempotency_request_in_progress',
          }),
        },
      },
    },
    async (request, reply) => {
      const outcome = await updateControl({
        ctx: requestContext(system, request),
        input: { controlId: request.params.controlId, idempotency: { key: request.idempotencyKey! }, body: request.body },
      });
      return sendOutcome(request, reply, outcome);
    },
  );
}
