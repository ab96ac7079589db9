// Policies, their documents and their published versions. Filters and shared columns live in
// artifacts.ts (evidence uses the same ones).
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../schema.ts';
import { commonColumns, fileEntry, artifactReads, nullableMs, listFileRows, type ArtifactCommon, type FileEntryRow } from './artifacts.ts';

type Q = Kysely<Database>;

export interface PolicyRow extends ArtifactCommon {
  customId: string;
  aiDetectedGaps: string[];
  policyBehavior: string | null;
  versionNumber: string | null;
  publishedBy: string | null;
  publishedOn: number | null;
}

export interface PolicyVersionRow {
  versionName: string;
  publishedBy: string | null;
  publishedOn: number;
}

function toPolicy(r: Selectable<Database['policies']>): PolicyRow {
  return {
    ...commonColumns(r),
    customId: r.custom_id,
    aiDetectedGaps: JSON.parse(r.ai_detected_gaps) as string[],
    policyBehavior: r.policy_behavior,
    versionNumber: r.version_number,
    publishedBy: r.published_by,
    publishedOn: nullableMs(r.published_on),
  };
}

const policyReads = artifactReads('policies', toPolicy);
export const listPolicies = policyReads.list;
export const findPolicy = policyReads.find;

/** A policy's documents, newest first (then by ID). */
export async function listPolicyDocuments(db: Q, organizationId: string, policyId: string): Promise<FileEntryRow[]> {
  const rows = await listFileRows(db, 'policy_documents', organizationId, policyId);
  return rows.map((r) => fileEntry(r));
}

/** A policy's published versions, newest first (then by ID). */
export async function listPolicyVersions(db: Q, organizationId: string, policyId: string): Promise<PolicyVersionRow[]> {
  const rows = await db
    .selectFrom('policy_versions')
    .select(['version_name', 'published_by', 'published_on'])
    .where('organization_id', '=', organizationId)
    .where('policy_id', '=', policyId)
    .orderBy('published_on', 'desc')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ versionName: r.version_name, publishedBy: r.published_by, publishedOn: Number(r.published_on) }));
}
