// Query schemas that GET /v1/policies and GET /v1/evidence share: the same filters (only the status
// and fields values differ). Their response shapes are in src/domain/artifacts/schema.ts.
import { Type, type Static, type TProperties } from 'typebox';
import { NO_DEPARTMENT, type ArtifactListInput } from '../../domain/artifacts/read.ts';
import { booleanParam, enumList, epochMsParam, parseBoolean, parseList, textList } from './lists.ts';

/** The query of a policy or evidence list: `noun` is `policies` or `evidence records`. */
export function artifactListQuery<const S extends readonly string[], const F extends readonly string[]>(
  noun: string,
  statuses: S,
  fields: F,
) {
  return Type.Object(
    {
      status: Type.Optional(enumList(statuses, `Only ${noun} with one of these statuses.`)),
      frameworkIds: Type.Optional(textList(`Only ${noun} mapped to any of these framework IDs (comma-separated).`)),
      controlIds: Type.Optional(textList(`Only ${noun} mapped to any of these control IDs (comma-separated).`)),
      entityIds: Type.Optional(textList(`Only ${noun} linked to any of these entity IDs (comma-separated).`)),
      isRelevant: Type.Optional(booleanParam(`Only relevant (true) or not relevant (false) ${noun}.`)),
      assigneeEmails: Type.Optional(
        textList(`Only ${noun} with an assignee whose email is one of these (comma-separated, case-insensitive; send + as %2B).`),
      ),
      approverEmails: Type.Optional(
        textList(`Only ${noun} with an approver whose email is one of these (comma-separated, case-insensitive; send + as %2B).`),
      ),
      departments: Type.Optional(
        textList(
          `Only ${noun} of one of these departments (comma-separated, whole names, case-insensitive); ` +
            `\`${NO_DEPARTMENT}\` selects ${noun} without a department.`,
        ),
      ),
      nextReviewAtFrom: Type.Optional(
        epochMsParam(`Only ${noun} whose next review date is at or after this time; ${noun} without one never match.`),
      ),
      nextReviewAtTo: Type.Optional(
        epochMsParam(`Only ${noun} whose next review date is at or before this time; ${noun} without one never match.`),
      ),
      fields: Type.Optional(enumList(fields, 'Optional fields to include.')),
    },
    { additionalProperties: false },
  );
}

/** The validated wire query, as the schema types it. */
type ArtifactListWire = Static<ReturnType<typeof artifactListQuery<readonly string[], readonly string[]>>>;

/** The validated wire query → the verb's input (lists split, booleans parsed). */
export function parseArtifactListQuery<S extends string, F extends string>(q: ArtifactListWire): ArtifactListInput<S, F> {
  return {
    status: parseList<S>(q.status),
    frameworkIds: parseList(q.frameworkIds),
    controlIds: parseList(q.controlIds),
    entityIds: parseList(q.entityIds),
    isRelevant: parseBoolean(q.isRelevant),
    assigneeEmails: parseList(q.assigneeEmails),
    approverEmails: parseList(q.approverEmails),
    departments: parseList(q.departments),
    nextReviewAtFrom: q.nextReviewAtFrom,
    nextReviewAtTo: q.nextReviewAtTo,
    fields: parseList<F>(q.fields),
  };
}

/** The query of a get-one: its expansions (`fields`), after the resource's own parameters if any. */
// biome-ignore lint/complexity/noBannedTypes: `{}` is TypeBox's "no properties", the default when a get-one has no parameters of its own
export function expansionsQuery<const F extends readonly string[], const P extends TProperties = {}>(values: F, before?: P) {
  return Type.Object(
    { ...(before as P), fields: Type.Optional(enumList(values, 'Expansions to include.')) },
    { additionalProperties: false },
  );
}

/**
 * The longest path ID accepted. No stored ID comes near it; the bound keeps a hostile path from
 * reaching the database, and a longer one is refused naming the parameter.
 */
export const MAX_PATH_ID_LENGTH = 512;

/** The path parameters of a get-one. */
export function idParams<const K extends string>(name: K, description: string) {
  return Type.Object({ [name]: Type.String({ description, minLength: 1, maxLength: MAX_PATH_ID_LENGTH }) } as Record<
    K,
    ReturnType<typeof Type.String>
  >);
}
