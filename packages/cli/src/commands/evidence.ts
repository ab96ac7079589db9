// compliance evidence list | get | upload | approve | request-revision | update
import type { GetEvidenceQuery, ListEvidenceQuery } from '../sdk.ts';
import { EVIDENCE_STATUS, GET_FIELDS, LIST_FIELDS } from '../vocabulary.ts';
import { artifactFilters } from './artifact-filters.ts';
import type { Command } from './command.ts';
import { evidenceUploadCommand } from './evidence-upload.ts';
import { evidenceMoveCommands } from './moves.ts';
import { fieldsOption, getCommand, listCommand } from './reads.ts';

export const evidenceCommands: Command[] = [
  listCommand({
    resource: 'evidence',
    summary: 'evidence records',
    examples: ['evidence list --status needs_revision --fields ticketsCount', 'evidence list --status not_uploaded -o json'],
    options: [...artifactFilters('evidence records', EVIDENCE_STATUS), fieldsOption(LIST_FIELDS.evidence)],
    fetch: (client, query, options) => client.evidence.list(query as ListEvidenceQuery, options),
  }),
  getCommand({
    resource: 'evidence',
    summary: 'one evidence record (--fields attachments lists its files)',
    examples: ['evidence get EVIDENCE_ID --fields attachments'],
    idName: 'EVIDENCE_ID',
    options: [fieldsOption(GET_FIELDS.evidence, 'expansions to include')],
    fetch: (client, id, query, options) => client.evidence.get(id, query as GetEvidenceQuery, options),
  }),
  evidenceUploadCommand,
  ...evidenceMoveCommands,
];
