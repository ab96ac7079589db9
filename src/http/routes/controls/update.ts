// PATCH /v1/controls/{controlId} (extension)
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { updateControl } from '../../../domain/controls/update.ts';
import { UpdateControlBody } from '../../../domain/controls/write-schema.ts';
import { WriteHeaders, writeGuards, replyWrite } from '../../idempotency.ts';
import { Envelope, writeErrors } from '../../schemas/common.ts';
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
          ...writeErrors('validation_failed (details name the field: `outOfScopeReason` when a move needs or refuses one)', 'control'),
        },
      },
    },
    async (request, reply) =>
      replyWrite(system, request, reply, updateControl, {
        controlId: request.params.controlId,
        idempotency: { key: request.idempotencyKey! },
        body: request.body,
      }),
  );
}
