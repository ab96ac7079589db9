// The program document (issue 25): an organization's program as one document, YAML or JSON, one
// file or a folder of files. One schema per kind of record lives with its resource
// (src/domain/<resource>/program-schema.ts); this assembles them. The JSON Schema file editors
// use is generated from this (program-edges), so the code and the editor check the same rules.
import { Type, type Static } from 'typebox';
import { ProgramFramework } from '../frameworks/program-schema.ts';
import { ProgramEntity } from '../entities/program-schema.ts';
import { ProgramPerson } from '../people/program-schema.ts';
import { ProgramRisk } from '../risks/program-schema.ts';
import { ProgramCustomField } from '../custom-fields/program-schema.ts';
import { ProgramControl } from '../controls/program-schema.ts';
import { ProgramPolicy } from '../policies/program-schema.ts';
import { ProgramEvidence } from '../evidence/program-schema.ts';
import { ProgramTest } from '../tests/program-schema.ts';
import { ProgramVulnerability } from '../vulnerabilities/program-schema.ts';
import { KIND_MAX_ENTRIES } from '../kinds/fields.ts';

/** The format version a document declares; a later format gets a new number. */
export const PROGRAM_FORMAT_VERSION = 1;

const list = <T extends Parameters<typeof Type.Array>[0]>(schema: T, what: string) =>
  Type.Optional(Type.Array(schema, { maxItems: KIND_MAX_ENTRIES, description: `${what}, each named by its unique key.` }));

export const ProgramDocument = Type.Object(
  {
    version: Type.Literal(PROGRAM_FORMAT_VERSION, { description: 'The format version: 1.' }),
    entities: list(ProgramEntity, 'Entities'),
    people: list(ProgramPerson, 'People'),
    risks: list(ProgramRisk, 'Risks'),
    customFields: list(ProgramCustomField, 'Custom field definitions'),
    frameworks: list(ProgramFramework, 'Frameworks with their requirements'),
    controls: list(ProgramControl, 'Controls'),
    policies: list(ProgramPolicy, 'Policies'),
    evidence: list(ProgramEvidence, 'Evidence records'),
    tests: list(ProgramTest, 'Tests'),
    vulnerabilities: list(ProgramVulnerability, 'Third-party findings'),
  },
  {
    additionalProperties: false,
    title: 'Compliance program document',
    description:
      'An organization’s compliance program. Records are named by keys; references use keys. Kinds left out are not touched by an apply.',
  },
);
export type ProgramDocument = Static<typeof ProgramDocument>;
