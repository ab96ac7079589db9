// The people stamps and the events of a scanner import (./import-run.ts): the actor's person row,
// made on the first change; the findings as GET answers them, before and after, for the events.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import { changedFields } from '../events/changes.ts';
import type { NewEvent } from '../events/record.ts';
import { actorPersonId } from '../people/actor-stamp.ts';
import type { VulnerabilityRow } from '../../storage/db/repositories/vulnerabilities/vulnerabilities.ts';
import {
  findPersonStamps,
  type ImportedChange,
  type ImportedRow,
} from '../../storage/db/repositories/vulnerabilities/vulnerability-imports.ts';
import type { Database } from '../../storage/db/schema.ts';
import { detailOfRow } from './get.ts';
import { findingFields } from './import-diff.ts';
import type { CustomField } from './schema.ts';

export class ImportEvents {
  /** the person row stamping this import's changes, and what GET shows of the people stamps seen */
  private stampId: string | undefined;
  private readonly stamps = new Map<string, { name: string; email: string }>();
  customFields: CustomField[] = [];
  private readonly ctx: Context;
  /** the import's transaction: a job's moves from slice to slice (./import-slices.ts) */
  trx: Kysely<Database>;
  private readonly org: string;
  private readonly now: number;

  constructor(ctx: Context, trx: Kysely<Database>, now: number) {
    this.ctx = ctx;
    this.trx = trx;
    this.org = ctx.actor.organizationId;
    this.now = now;
  }

  /** The actor's person row, made on the first change (an unchanged import writes nothing, not even it). */
  async stamp(): Promise<string> {
    if (this.stampId === undefined) {
      this.stampId = await actorPersonId(this.trx, this.org, { kind: 'credential', credentialId: this.ctx.actor.credentialId });
      for (const [id, stamp] of await findPersonStamps(this.trx, this.org, [this.stampId])) this.stamps.set(id, stamp);
    }
    return this.stampId;
  }

  /** Loads the stamps of the people these rows name that are not known yet. */
  async loadStamps(rows: readonly ImportedRow[]): Promise<void> {
    const ids = new Set<string>();
    for (const r of rows) for (const id of [r.addedBy, r.lastModifiedBy]) if (id && !this.stamps.has(id)) ids.add(id);
    for (const [id, stamp] of await findPersonStamps(this.trx, this.org, [...ids])) this.stamps.set(id, stamp);
  }

  /** The finding as GET answers it (its assignees and custom values are not the import's: left out of both sides of a change). */
  private detail(row: VulnerabilityRow) {
    const detail = detailOfRow(row, [], this.customFields);
    const addedBy = row.addedBy ? this.stamps.get(row.addedBy) : undefined;
    if (addedBy) detail.addedBy = addedBy;
    const lastModifiedBy = row.lastModifiedBy ? this.stamps.get(row.lastModifiedBy) : undefined;
    if (lastModifiedBy) detail.lastModifiedBy = lastModifiedBy;
    return detail;
  }

  created(row: VulnerabilityRow): NewEvent {
    const detail = this.detail(row);
    return { type: 'vulnerability.created', resourceId: detail.vulnerabilityId, occurredAt: this.now, data: { vulnerability: detail } };
  }

  updated(row: ImportedRow, change: ImportedChange): NewEvent {
    const before = this.detail(row);
    const after = this.detail({
      ...row,
      ...findingFields(change),
      status: change.status,
      lastScannedOn: change.lastScannedOn,
      modifiedOn: change.modifiedOn,
      lastModifiedBy: change.lastModifiedBy,
    });
    return {
      type: 'vulnerability.updated',
      resourceId: after.vulnerabilityId,
      occurredAt: this.now,
      data: { changes: changedFields(before, after) },
    };
  }
}
