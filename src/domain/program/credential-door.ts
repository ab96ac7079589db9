// The program verbs for an organization's own API credential (PUT and GET /v1/program, the SDK,
// the `compliance` CLI): the scopes of every kind the document touches, checked first and all
// named at once; the apply under the spec's Idempotency-Key rules, fingerprinted by the body's
// hash (docs/program-documents.md, "Over HTTP"). `cds` and the console act for the organization
// they name and call the verbs directly.
import { createHash } from 'node:crypto';
import type { Context } from '../context.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { RESOURCES, type Actor, type Resource } from '../auth/scopes.ts';
import { ServiceError } from '../../shared/errors.ts';
import { fingerprintSubject, jsonFingerprint } from '../idempotency/fingerprint.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import type { ProgramDocument } from './document-schema.ts';
import type { DocumentCheck } from './precheck.ts';
import type { ProgramPlan } from './plan-schema.ts';
import { PROGRAM_KINDS } from './registry.ts';
import { applyProgramIn, exportProgram, planProgram, scopesForDocument, type ProgramContext } from './verbs.ts';

/**
 * Throws unless the actor holds `<resource>:<action>` for every resource, naming every missing
 * scope at once (403 forbidden), then every resource the organization's plan leaves out (403
 * plan_restricted).
 */
export function authorizeAll(actor: Actor, resources: readonly Resource[], action: 'read' | 'write', what: string): void {
  const holds = (r: Resource) => actor.scopes.has(`${r}:write`) || (action === 'read' && actor.scopes.has(`${r}:read`));
  const missing = resources.filter((r) => !holds(r));
  if (missing.length > 0) {
    const names = missing.map((r) => (action === 'read' ? `${r}:read` : `${r}:write`));
    throw new ServiceError(
      'forbidden',
      `${what} needs the scope${names.length > 1 ? 's' : ''} ${names.join(', ')}, which this credential lacks.`,
    );
  }
  const outside = resources.filter((r) => !actor.plan.has(r));
  if (outside.length > 0) {
    throw new ServiceError(
      'plan_restricted',
      `${what} touches ${outside.join(', ')} data, which the organization's plan does not include.`,
    );
  }
}

/** The write scopes a program document may need: those of every kind it can hold. */
export const PROGRAM_WRITE_SCOPES = RESOURCES.filter((r) => PROGRAM_KINDS.some((k) => k.resources.includes(r))).map(
  (r) => `${r}:write` as const,
);

/**
 * Throws 403 forbidden unless the actor holds at least one write scope a document may need. The
 * HTTP door checks it before it reads the body: a credential that can write nothing never makes
 * the server read or parse a document (issue 36). The document's own scopes are checked once it is
 * parsed (authorizeAll).
 */
export function refuseWithoutWriteScope(actor: Actor): void {
  if (PROGRAM_WRITE_SCOPES.some((scope) => actor.scopes.has(scope))) return;
  throw new ServiceError(
    'forbidden',
    `A program document needs the write scope of each kind it holds (${PROGRAM_WRITE_SCOPES.join(', ')}); this credential holds none of them.`,
  );
}

export interface CredentialProgramInput {
  /** the parsed document */
  document: unknown;
  /** what the door's parse checked of it (ProgramInput.checked) */
  checked?: DocumentCheck;
  prune: boolean;
  /** `plan`: what an apply would do, writing nothing (needs no Idempotency-Key) */
  mode: 'plan' | 'apply';
  /** required for `apply` */
  idempotency?: IdempotencyInput;
  /** the SHA-256 of the body's bytes and how it was read: what an Idempotency-Key is bound to */
  body: { sha256: string; source: 'document' | 'oscal-catalog'; frameworkKey?: string };
}

const credentialContext = (ctx: Context): ProgramContext => ({
  ...ctx,
  stamp: { kind: 'credential', credentialId: ctx.actor.credentialId },
});

/** The SHA-256 of a body's bytes, in hex. */
export const bodySha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Plans or applies a document for the credential's own organization. */
export async function programForCredential({ ctx, input }: { ctx: Context; input: CredentialProgramInput }): Promise<Outcome<ProgramPlan>> {
  const organizationId = ctx.actor.organizationId;
  authorizeAll(ctx.actor, scopesForDocument(input.document), 'write', 'This document');
  const pctx = credentialContext(ctx);
  const verbInput = { organizationId, document: input.document, checked: input.checked, prune: input.prune };
  if (input.mode === 'plan') return { kind: 'updated', resource: await planProgram({ ctx: pctx, input: verbInput }), replayed: false };
  if (!input.idempotency) throw new ServiceError('idempotency_key_required', 'This write needs an Idempotency-Key header.');
  const fingerprint = jsonFingerprint(fingerprintSubject('program.apply', ''), {
    sha256: input.body.sha256,
    source: input.body.source,
    frameworkKey: input.body.frameworkKey,
    prune: input.prune,
  });
  const outcome = await runIdempotent(keyScopeOf(ctx, input.idempotency), [fingerprint], async (trx) => ({
    kind: 'updated' as const,
    resource: await applyProgramIn(trx, pctx, verbInput),
  }));
  if (!outcome.replayed && outcome.resource.changed) await announceOrganizationChange(ctx, organizationId);
  return outcome;
}

/**
 * The credential's organization's program: needs the read scope of every resource the plan
 * includes; the export leaves out what the plan excludes (plan-bounds.ts), as an expansion does.
 */
export async function exportProgramForCredential({ ctx }: { ctx: Context }): Promise<ProgramDocument> {
  authorizeAll(
    ctx.actor,
    RESOURCES.filter((r) => ctx.actor.plan.has(r)),
    'read',
    'Exporting the program',
  );
  return exportProgram({ ctx, input: { organizationId: ctx.actor.organizationId } });
}
