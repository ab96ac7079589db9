// The moves that change a program's statuses (extensions of the API, docs/program-moves.md):
//   compliance evidence approve | request-revision | update
//   compliance policies submit | approve | publish | request-review | update
// Each is one idempotent write (writes.ts): the record as the service answers it is printed, like
// `get` prints it; a move the record's status does not allow exits 6 with the service's message,
// which names the moves allowed from there.
import { parseTime, UsageError, type OptionSpec, type ParsedValues } from '../args.ts';
import type { Context } from '../context.ts';
import { writeRecord } from '../output/writer.ts';
import type { ResponseInfo, UpdateEvidenceBody, UpdatePolicyBody, WriteOptions } from '../sdk.ts';
import type { Command } from './command.ts';
import { idempotencyKeyOption, readJsonObject, sendWrite } from './writes.ts';

type Client = ReturnType<Context['client']>;
type Written = { data: { status: string }; response: ResponseInfo };

const fileOption: OptionSpec = {
  name: 'file',
  short: 'f',
  kind: 'string',
  valueName: 'FILE|-',
  help: 'the change as a JSON object (- reads stdin); flags override its fields',
};

const relevanceOptions: OptionSpec[] = [
  { name: 'relevant', kind: 'switch', help: 'make it relevant again (clears the reason)' },
  { name: 'not-relevant', kind: 'string', valueName: 'REASON', help: 'mark it not relevant, with the reason (required)' },
];

/** A move without a body: `compliance <group> <action> ID`. */
function simpleMove(spec: {
  group: 'evidence' | 'policies';
  action: string;
  summary: string;
  idName: string;
  notes: string;
  send: (client: Client, id: string, values: ParsedValues, options: WriteOptions) => Promise<Written>;
  options?: OptionSpec[];
  example?: string;
}): Command {
  return {
    group: spec.group,
    action: spec.action,
    summary: spec.summary,
    examples: [
      spec.example ?? `${spec.group} ${spec.action} ${spec.idName}`,
      `${spec.group} ${spec.action} ${spec.idName} --idempotency-key ${spec.action}-2026-q4 -o json`,
    ],
    args: spec.idName,
    positionals: { min: 1, max: 1, name: spec.idName },
    options: [...(spec.options ?? []), idempotencyKeyOption],
    notes: spec.notes,
    async run(ctx, values, [id]) {
      const client = ctx.client();
      const result = await sendWrite(ctx, values, (options) => spec.send(client, id, values, options));
      ctx.io.err(`${spec.group === 'evidence' ? 'evidence' : 'policy'} ${id} is now ${result.data.status}`);
      await writeRecord(ctx.io, ctx.format, result.data);
    },
  };
}

/** `NAME=URL` → a link. */
function parseLink(flag: string, text: string): { displayName: string; url: string } {
  const eq = text.indexOf('=');
  if (eq <= 0 || eq === text.length - 1)
    throw new UsageError(`${flag} takes NAME=URL, e.g. "Pen test report=https://example.com/r"; not "${text}"`);
  return { displayName: text.slice(0, eq).trim(), url: text.slice(eq + 1).trim() };
}

function applyRelevance(values: ParsedValues, body: Record<string, unknown>): void {
  if (values.relevant && values['not-relevant'] !== undefined) throw new UsageError('give --relevant or --not-relevant, not both');
  if (values.relevant) body.isRelevant = true;
  if (values['not-relevant'] !== undefined) {
    body.isRelevant = false;
    body.notRelevantReason = values['not-relevant'];
  }
}

const evidenceApprove = simpleMove({
  group: 'evidence',
  action: 'approve',
  summary: 'approve evidence waiting for approval (pending_approval → uploaded)',
  idName: 'EVIDENCE_ID',
  notes: 'Allowed from pending_approval only; the service names the moves allowed from any other status.',
  send: (client, id, _values, options) => client.evidence.approve(id, options),
});

const evidenceRequestRevision = simpleMove({
  group: 'evidence',
  action: 'request-revision',
  summary: 'send evidence back for revision, with the reason (→ needs_revision)',
  idName: 'EVIDENCE_ID',
  example: 'evidence request-revision EVIDENCE_ID --reason "The export is from last year."',
  options: [{ name: 'reason', kind: 'string', valueName: 'TEXT', help: 'why it is sent back, 1-2,000 characters (required)' }],
  notes: 'Allowed from uploaded, pending_approval, needs_review and needs_attention.',
  send: (client, id, values, options) => {
    const reason = values.reason as string | undefined;
    if (reason === undefined) throw new UsageError('--reason is required: say why the evidence is sent back');
    return client.evidence.requestRevision(id, { rejectionReason: reason }, options);
  },
});

const evidenceUpdate: Command = {
  group: 'evidence',
  action: 'update',
  summary: 'change relevance, or add external links as attachments without a file',
  examples: [
    'evidence update EVIDENCE_ID --link "Pen test report=https://vendor.example.com/reports/2026" --evidence-date 2026-11-20',
    'evidence update EVIDENCE_ID --not-relevant "We have no office."',
    'evidence update EVIDENCE_ID --relevant',
  ],
  args: 'EVIDENCE_ID',
  positionals: { min: 1, max: 1, name: 'EVIDENCE_ID' },
  options: [
    ...relevanceOptions,
    {
      name: 'link',
      kind: 'string',
      repeatable: true,
      valueName: 'NAME=URL',
      help: 'an external link to attach (http or https); repeat for more (at most 20)',
    },
    { name: 'link-note', kind: 'string', valueName: 'TEXT', help: 'a note stored with every --link' },
    { name: 'evidence-date', kind: 'time', help: 'what date the links are evidence for (default: now)' },
    fileOption,
    idempotencyKeyOption,
  ],
  notes: 'Links submit evidence as an upload does: the record becomes pending_approval when it has approvers, otherwise uploaded.',
  async run(ctx, values, [id]) {
    const body: Record<string, unknown> = values.file !== undefined ? await readJsonObject(values.file as string, ctx, '--file') : {};
    applyRelevance(values, body);
    const links = ((values.link as string[] | undefined) ?? []).map((l) => parseLink('--link', l));
    if (links.length > 0) {
      const note = values['link-note'] as string | undefined;
      const evidenceDate = values['evidence-date'] as number | undefined;
      body.links = links.map((l) => ({
        ...l,
        ...(note !== undefined ? { note } : {}),
        ...(evidenceDate !== undefined ? { evidenceDate } : {}),
      }));
    } else if (values['link-note'] !== undefined || values['evidence-date'] !== undefined) {
      throw new UsageError('--link-note and --evidence-date go with --link');
    }
    if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --link, --relevant, --not-relevant or --file');
    const client = ctx.client();
    const result = await sendWrite(ctx, values, (options) => client.evidence.update(id, body as UpdateEvidenceBody, options));
    ctx.io.err(`updated evidence ${id} (${result.data.status})`);
    await writeRecord(ctx.io, ctx.format, result.data);
  },
};

const policySubmit = simpleMove({
  group: 'policies',
  action: 'submit',
  summary: 'submit a policy for approval (→ pending_approval, or draft_approved without approvers)',
  idName: 'POLICY_ID',
  notes: 'Allowed from draft, needs_review and needs_attention.',
  send: (client, id, _values, options) => client.policies.submit(id, options),
});

const policyApprove = simpleMove({
  group: 'policies',
  action: 'approve',
  summary: 'approve a policy waiting for approval (pending_approval → draft_approved)',
  idName: 'POLICY_ID',
  notes: 'Allowed from pending_approval only.',
  send: (client, id, _values, options) => client.policies.approve(id, options),
});

const policyPublish = simpleMove({
  group: 'policies',
  action: 'publish',
  summary: 'publish an approved policy as a new version (draft_approved → published)',
  idName: 'POLICY_ID',
  example: 'policies publish POLICY_ID --version-name 2.0',
  options: [
    {
      name: 'version-name',
      kind: 'string',
      valueName: 'NAME',
      help: 'the new version (default: the next minor version, 1.0 for the first)',
    },
  ],
  notes: 'Allowed from draft_approved only. `policies get POLICY_ID --fields versionHistory` lists the versions.',
  send: (client, id, values, options) => {
    const versionName = values['version-name'] as string | undefined;
    return client.policies.publish(id, versionName === undefined ? {} : { versionName }, options);
  },
});

const policyRequestReview = simpleMove({
  group: 'policies',
  action: 'request-review',
  summary: 'mark a policy for review (→ needs_review)',
  idName: 'POLICY_ID',
  notes: 'Allowed from published and needs_attention. A policy under review counts as incomplete for its controls.',
  send: (client, id, _values, options) => client.policies.requestReview(id, options),
});

const policyUpdate: Command = {
  group: 'policies',
  action: 'update',
  summary: 'change relevance or the next review date, or add documents as external links',
  examples: [
    'policies update POLICY_ID --next-review-date 2027-01-31',
    'policies update POLICY_ID --document "Policy (wiki)=https://wiki.example.com/access"',
    'policies update POLICY_ID --not-relevant "We run no office network." --next-review-date none',
  ],
  args: 'POLICY_ID',
  positionals: { min: 1, max: 1, name: 'POLICY_ID' },
  options: [
    ...relevanceOptions,
    {
      name: 'next-review-date',
      kind: 'string',
      valueName: 'DATE|none',
      help: 'the next review (ISO date, epoch ms or now); none clears it',
    },
    {
      name: 'document',
      kind: 'string',
      repeatable: true,
      valueName: 'NAME=URL',
      help: 'a document to add as an external link (http or https); repeat for more (at most 20)',
    },
    { name: 'document-note', kind: 'string', valueName: 'TEXT', help: 'a note stored with every --document' },
    fileOption,
    idempotencyKeyOption,
  ],
  notes: 'Documents added to a not_uploaded policy make it a draft.',
  async run(ctx, values, [id]) {
    const body: Record<string, unknown> = values.file !== undefined ? await readJsonObject(values.file as string, ctx, '--file') : {};
    applyRelevance(values, body);
    const next = values['next-review-date'] as string | undefined;
    if (next !== undefined) body.nextReviewDate = next.trim().toLowerCase() === 'none' ? null : parseTime('--next-review-date', next);
    const documents = ((values.document as string[] | undefined) ?? []).map((d) => parseLink('--document', d));
    if (documents.length > 0) {
      const note = values['document-note'] as string | undefined;
      body.documents = documents.map((d) => ({ ...d, ...(note !== undefined ? { note } : {}) }));
    } else if (values['document-note'] !== undefined) {
      throw new UsageError('--document-note goes with --document');
    }
    if (Object.keys(body).length === 0)
      throw new UsageError('nothing to change: give --document, --next-review-date, --relevant, --not-relevant or --file');
    const client = ctx.client();
    const result = await sendWrite(ctx, values, (options) => client.policies.update(id, body as UpdatePolicyBody, options));
    ctx.io.err(`updated policy ${id} (${result.data.status})`);
    await writeRecord(ctx.io, ctx.format, result.data);
  },
};

export const evidenceMoveCommands: Command[] = [evidenceApprove, evidenceRequestRevision, evidenceUpdate];
export const policyMoveCommands: Command[] = [policySubmit, policyApprove, policyPublish, policyRequestReview, policyUpdate];
