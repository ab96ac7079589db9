// A framework and its requirements as an organization's program brings them in: the records are
// named by keys the author chooses (the service derives each ID from the organization and the key),
// and carry what the `frameworks` and `requirements` tables store: the framework's name, each
// requirement's code and name, in the author's order. Importers of framework files (an OSCAL
// catalog, src/formats/oscal/catalog-import.ts) produce this shape, so a file and a hand-written
// document name the same records the same way.
import { Type, type Static } from 'typebox';
import { RECORD_KEY_RULE, RecordKey } from '../kinds/fields.ts';

/** Longest framework name accepted. */
export const FRAMEWORK_NAME_MAX_LENGTH = 255;
/** Longest requirement code accepted (codes such as `AC-2(12)` or `GV.OC-01` are far shorter). */
export const REQUIREMENT_CODE_MAX_LENGTH = 100;
/** Longest requirement name accepted. */
export const REQUIREMENT_NAME_MAX_LENGTH = 500;
/**
 * Most requirements one framework may have. The largest public catalogs have about 1,200 controls
 * and enhancements (NIST SP 800-53 rev. 5, withdrawn ones included), so this leaves room for any
 * real framework while bounding what one write can ask of the database.
 */
export const FRAMEWORK_REQUIREMENTS_MAX = 10_000;

/** A name a person reads: not blank, no line breaks or invisible characters (src/domain/text.ts). */
const name = (maxLength: number) =>
  Type.String({ minLength: 1, maxLength, pattern: '\\S', description: `1-${maxLength} characters, not blank.` });

const EpochMs = Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000 });

export const ProgramRequirement = Type.Object(
  {
    key: Type.String({ ...RecordKey, description: `${RECORD_KEY_RULE} Unique within its framework.` }),
    code: Type.String({ ...name(REQUIREMENT_CODE_MAX_LENGTH), description: 'What the framework calls it, such as `AC-2(1)`.' }),
    name: name(REQUIREMENT_NAME_MAX_LENGTH),
  },
  { additionalProperties: false },
);

export const ProgramFramework = Type.Object(
  {
    key: RecordKey,
    name: name(FRAMEWORK_NAME_MAX_LENGTH),
    requirements: Type.Array(ProgramRequirement, {
      maxItems: FRAMEWORK_REQUIREMENTS_MAX,
      description: `In the framework's order; at most ${FRAMEWORK_REQUIREMENTS_MAX}.`,
    }),
    // What GET /v1/frameworks shows besides (a program document carries it; a catalog has none of it).
    entities: Type.Optional(
      Type.Array(Type.String({ ...RecordKey, description: 'The key of an entity.' }), {
        maxItems: 1_000,
        uniqueItems: true,
        description: 'Keys of the entities the framework applies to.',
      }),
    ),
    nextAuditDate: Type.Optional(Type.Union([EpochMs, Type.Null()], { description: 'Unix epoch milliseconds, or null.' })),
    tscSelections: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: 100,
        uniqueItems: true,
        description: 'SOC 2 Trust Services Criteria selected.',
      }),
    ),
    addedBy: Type.Optional(
      Type.Union([Type.String({ ...RecordKey }), Type.Null()], {
        description: 'The key of the person who added it, or null; default: who applies the document.',
      }),
    ),
    addedOn: Type.Optional({ ...EpochMs, description: 'Unix epoch milliseconds; default: when it is first applied.' }),
    lastModifiedBy: Type.Optional(
      Type.Union([Type.String({ ...RecordKey }), Type.Null()], {
        description: 'The key of the person who last changed it, or null; default: who applies a change.',
      }),
    ),
    modifiedOn: Type.Optional(
      Type.Union([EpochMs, Type.Null()], { description: 'Unix epoch milliseconds; default: when a change is applied.' }),
    ),
  },
  { additionalProperties: false },
);

export type ProgramRequirement = Static<typeof ProgramRequirement>;
export type ProgramFramework = Static<typeof ProgramFramework>;
