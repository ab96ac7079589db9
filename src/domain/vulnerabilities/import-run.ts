// One scanner import inside its transaction (./import.ts starts it; docs/decisions/program-writes.md,
// "Scanner imports"). The pipeline: the file is parsed as it streams (the format's parser, handed in
// by the door: ./scan-format.ts), each finding keyed in its scope (held until the file names it),
// and in batches: validated and diffed against the stored findings (./import-diff.ts), the changed
// rows read whole, what changed written in bulk, and the events recorded from the same diff
// (./import-events.ts). Findings of the scope and source that the file no longer reports are closed
// at the end. A failure anywhere (a malformed entry late in the file) rolls everything back. A job
// runs it twice (./import-slices.ts): a dry run that checks the whole file and writes nothing, then
// the writes in slices.
import { shareTheLoop } from '../../shared/event-loop-turns.ts';
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import { validationFailed } from '../../shared/errors.ts';
import { WRITES } from '../../shared/data-versions.ts';
import { recordEvents, type NewEvent } from '../events/record.ts';
import { bumpDataVersions, lockOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import { listCustomFieldDefinitions } from '../../storage/db/repositories/vulnerabilities/vulnerabilities.ts';
import {
  addResources,
  closeImported,
  countOpenInScope,
  findRowsByIds,
  findStatesByKeys,
  insertImported,
  loadResources,
  pageOpenInScope,
  replaceResources,
  updateImported,
  type ImportedChange,
  type ImportedResource,
  type ImportedResourceRow,
  type ImportedRow,
  type ImportedState,
  type NewImportedFinding,
} from '../../storage/db/repositories/vulnerabilities/vulnerability-imports.ts';
import type { Database } from '../../storage/db/schema.ts';
import type { ImportResult } from './import-schema.ts';
import { diffBatch, findingFields, type BatchDiff } from './import-diff.ts';
import { ImportEvents } from './import-events.ts';
import { mergeFindings, scopedKey, uniqueResources } from './import-plan.ts';
import type { ScanFormat } from './scan-format.ts';
import type { ImportSlices } from './import-slices.ts';
import { MAX_HELD, MAX_NAME, type ScannedFinding, type ScanSummary } from './scanned-finding.ts';
import { mergeCustomFields, type VulnerabilitySource } from './shape.ts';
import { sourceOfTool } from './source-of-tool.ts';

/** Findings read, checked and written together: one read of the stored ones, one insert, one event batch. */
const BATCH = 500;
/** Findings of the scope's page read at once when closing what the file no longer reports. */
const CLOSE_PAGE = 1000;
/** Findings of the scope counted by one statement (openInScope): about 10 ms on SQLite (all 100,000 of a scope at once: 391-481 ms). */
const COUNT_PART = 2000;

const resourceKey = (r: Pick<ImportedResource, 'type' | 'name'>) => `${r.type}\u0000${r.name}`;

export interface ImportRunOptions {
  /** check the file against the stored findings, a batch at a time, and write nothing (a job's first pass) */
  dryRun?: boolean;
  /** commit a slice when it is due, at the end of a batch of the close (./import-slices.ts) */
  slices?: ImportSlices;
  /** and at the end of a batch of the file too: its dry run found it sound (a large file's second pass) */
  slicesWhileReading?: boolean;
  /** after each batch, with the findings (distinct keys) gone through so far: a job's progress */
  onBatch?: (keysRead: number) => void;
}

/** One import inside its transaction: the counts, the keys reported, and the batch being read. */
export class ImportRun {
  private readonly org: string;
  private readonly now: number;
  private scope: string | undefined;
  private live: Readonly<ScanSummary> | undefined;
  /** `source \0 key` of every finding the file reported: what is not among them is closed */
  private readonly seen = new Set<string>();
  private batch = new Map<string, ScannedFinding>();
  private readonly held: ScannedFinding[] = [];
  private firstSource: string | undefined;
  /** per source: findings the file reported that are not closed after it (all open ones reported: nothing to close) */
  private readonly openReported = new Map<string, number>();
  private readonly result = { created: 0, updated: 0, closed: 0, reopened: 0, unchanged: 0, findingIds: [] as string[] };
  /** whether the import wrote anything */
  changed = false;
  /** the file's findings (distinct keys) gone through so far; all of them once it has run */
  keysRead = 0;
  /** whether it wrote anything since its slice began (the whole run when it is not sliced) */
  private sliceChanged = false;
  private readonly events: ImportEvents;

  private readonly ctx: Context;
  /** the transaction (the current slice's), or the database itself for a dry run */
  private trx: Kysely<Database>;
  private readonly format: ScanFormat;
  private readonly options: ImportRunOptions;

  constructor(ctx: Context, trx: Kysely<Database>, format: ScanFormat, requestScope: string | undefined, options: ImportRunOptions = {}) {
    this.ctx = ctx;
    this.trx = trx;
    this.format = format;
    this.options = options;
    this.org = ctx.actor.organizationId;
    this.now = ctx.now();
    this.scope = requestScope ?? (format.scopeless ? '' : undefined);
    this.events = new ImportEvents(ctx, trx, this.now);
  }

  async execute(chunks: AsyncIterable<Uint8Array>): Promise<ImportResult> {
    // First: concurrent imports (and other writes) of the organization run one after the other.
    if (!this.options.dryRun) await lockOrganization(this.trx, this.org);
    this.events.customFields = mergeCustomFields(await listCustomFieldDefinitions(this.trx, this.org, 'vulnerability'), undefined);
    const summary = await this.parse(chunks);
    if (this.scope === undefined) this.scope = this.fileScope(summary.scope) ?? '';
    for (const finding of this.held.splice(0)) await this.add(finding);
    await this.flush();
    const source = (this.firstSource ?? sourceOfTool(summary.tool ?? '')) as VulnerabilitySource;
    if (this.format.absentCloses && !this.options.dryRun) {
      for (const s of new Set([source, ...this.sourcesSeen()])) await this.closeUnreported(s);
    }
    if (this.sliceChanged && !this.options.dryRun) await bumpDataVersions(this.trx, this.org, WRITES['vulnerabilities.import']);
    const warnings = summary.warnings?.length ? { warnings: summary.warnings } : {};
    return { format: this.format.name, scope: this.scope === '' ? null : this.scope, source, ...this.result, ...warnings };
  }

  /** Parse: every finding of the file taken as it is read; the file's summary at its end. */
  private async parse(chunks: AsyncIterable<Uint8Array>): Promise<ScanSummary> {
    const findings = this.format.parse(chunks, (summary) => (this.live = summary));
    try {
      for (;;) {
        const step = await findings.next();
        if (step.done) return step.value;
        await this.take(step.value);
        // A chunk of the file holds many findings, and SQLite's statements are synchronous: without a
        // turn now and then, other requests wait for whole batches (issue 36).
        await shareTheLoop();
      }
    } finally {
      // Stopped early by a refusal of a finding or a failed write: the parser lets go of the file
      // (and a parser in a worker thread, of its thread: src/workers/scan-in-pool.ts).
      await findings.return(undefined as never);
    }
  }

  private sourcesSeen(): Set<string> {
    return new Set([...this.seen].map((k) => k.slice(0, k.indexOf('\u0000'))));
  }

  /** A finding read: held while the scope is not known yet (the file may name it later), else added. */
  private async take(finding: ScannedFinding): Promise<void> {
    if (this.scope === undefined) {
      if (this.live?.scope === undefined) {
        if (this.held.length >= MAX_HELD)
          throw validationFailed([
            {
              field: 'scope',
              message: `is needed: the file names what it scanned only after more than ${MAX_HELD} findings, or not at all; name it with scope`,
            },
          ]);
        this.held.push(finding);
        return;
      }
      this.scope = this.fileScope(this.live.scope);
      for (const h of this.held.splice(0)) await this.add(h);
    }
    await this.add(finding);
  }

  /** The scope a file names, as this format takes it: its own when it says so (`ownScope`). */
  private fileScope<S extends string | undefined>(scope: S): S {
    if (scope === undefined || !this.format.ownScope) return scope;
    const suffix = ` (${this.format.name})`;
    return `${scope.slice(0, MAX_NAME - suffix.length)}${suffix}` as S;
  }

  /** Resolve: the finding keyed in its scope, merged with the batch's report of the same key. */
  private async add(finding: ScannedFinding): Promise<void> {
    const id = `${finding.source}\u0000${scopedKey(finding.key, this.scope as string)}`;
    const same = this.batch.get(id);
    this.batch.set(id, same ? mergeFindings(same, finding) : finding);
    if (this.batch.size >= BATCH) await this.flush();
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = new Map();
    const bySource = new Map<string, Map<string, ScannedFinding>>();
    for (const [id, finding] of batch) {
      const at = id.indexOf('\u0000');
      const source = id.slice(0, at);
      let group = bySource.get(source);
      if (!group) bySource.set(source, (group = new Map()));
      group.set(id.slice(at + 1), finding);
    }
    for (const [source, group] of bySource) await this.write(source, group);
  }

  /** One batch of one source: read the stored findings, diff, write what changed, record the events. */
  private async write(source: string, group: Map<string, ScannedFinding>): Promise<void> {
    this.firstSource ??= source;
    const keys = [...group.keys()];
    const again = keys.filter((k) => this.seen.has(`${source}\u0000${k}`));
    const fresh = keys.filter((k) => !this.seen.has(`${source}\u0000${k}`));
    const rows = new Map((await findStatesByKeys(this.trx, this.org, source, keys)).map((r) => [r.findingKey, r]));
    const diff = await diffBatch({ source, scope: this.scope as string, now: this.now, group, fresh, rows });
    this.keysRead += fresh.length;
    if (this.options.dryRun) {
      for (const key of fresh) this.seen.add(`${source}\u0000${key}`);
      this.options.onBatch?.(this.keysRead);
      return;
    }
    this.count(diff);
    // Each step is a few statements, synchronous on SQLite: a turn of the loop between them.
    const { updates, events } = await this.stampChanges(diff);
    await shareTheLoop();
    events.push(...(await this.insertNew(source, diff.inserts)));
    await updateImported(this.trx, this.org, updates);
    await shareTheLoop();
    await this.rewriteResources(diff.resourceRewrites, new Map(updates.map((u) => [u.id, u.status])));
    await this.addAgain(again, group, rows);
    await shareTheLoop();
    await this.record(events);
    if (diff.inserts.length + updates.length > 0) this.markChanged();
    for (const key of fresh) this.seen.add(`${source}\u0000${key}`);
    this.openReported.set(source, (this.openReported.get(source) ?? 0) + diff.open);
    this.options.onBatch?.(this.keysRead);
    // A slice committed before the file's end could leave a file refused late half-written: only
    // once a dry run has checked it all.
    if (this.options.slicesWhileReading) await this.nextSliceWhenDue();
  }

  private markChanged(): void {
    this.changed = true;
    this.sliceChanged = true;
  }

  /**
   * A slice boundary (./import-slices.ts), at the end of a batch: the slice's data versions bumped
   * in it, committed, and the next one begun under the organization's lock again.
   */
  private async nextSliceWhenDue(): Promise<void> {
    const slices = this.options.slices;
    if (!slices?.due) return;
    const changed = this.sliceChanged;
    if (changed) await bumpDataVersions(this.trx, this.org, WRITES['vulnerabilities.import']);
    this.sliceChanged = false;
    this.trx = await slices.next(changed);
    this.events.trx = this.trx;
    await lockOrganization(this.trx, this.org);
  }

  private count(diff: BatchDiff): void {
    this.result.unchanged += diff.unchanged;
    this.result.updated += diff.updated;
    this.result.closed += diff.closed;
    this.result.reopened += diff.reopened;
  }

  /**
   * The changes stamped (the actor's person row made on the first change), a statement's filled in
   * from the finding's whole row, each with its event: the fields before and after.
   */
  private async stampChanges(diff: BatchDiff): Promise<{ updates: ImportedChange[]; events: NewEvent[] }> {
    const fullRows = new Map(
      (
        await findRowsByIds(
          this.trx,
          this.org,
          diff.changes.map((c) => c.id),
        )
      ).map((r) => [r.id, r]),
    );
    const by = diff.changes.length + diff.inserts.length > 0 ? await this.events.stamp() : '';
    await this.events.loadStamps([...fullRows.values()]);
    const updates: ImportedChange[] = [];
    const events: NewEvent[] = [];
    for (const change of diff.changes) {
      const row = fullRows.get(change.id) as ImportedRow;
      const update = change.keepFields ? { ...change, lastModifiedBy: by, ...findingFields(row) } : { ...change, lastModifiedBy: by };
      updates.push(update);
      events.push(this.events.updated(row, update));
    }
    for (const f of diff.inserts) f.addedBy = by;
    return { updates, events };
  }

  /** New findings written in bulk; their events show them as GET does. */
  private async insertNew(source: string, inserts: readonly NewImportedFinding[]): Promise<NewEvent[]> {
    const ids = await insertImported(this.ctx.db, this.trx, this.org, inserts);
    const events = inserts.map((f, i) =>
      this.events.created({
        id: ids[i] as string,
        source,
        findingKey: f.findingKey,
        ...findingFields(f),
        status: f.status,
        stepsToReproduce: null,
        firstSeen: this.now,
        lastScannedOn: this.now,
        sla: null,
        reportLink: null,
        addedBy: f.addedBy,
        addedOn: this.now,
        lastModifiedBy: null,
        modifiedOn: null,
      }),
    );
    this.result.created += inserts.length;
    return events;
  }

  /** Resources that changed replaced, with their finding's status; those still reported keep when they were first seen. */
  private async rewriteResources(rewrites: ReadonlyMap<string, ImportedResource[]>, statuses: ReadonlyMap<string, string>): Promise<void> {
    if (rewrites.size === 0) return;
    const before = await loadResources(this.trx, this.org, [...rewrites.keys()]);
    const rewritten = new Map(
      [...rewrites].map(([id, list]) => {
        const old = new Map((before.get(id) ?? []).map((r) => [resourceKey(r), r.firstSeen]));
        const status = statuses.get(id) ?? 'open';
        return [id, list.map((r) => ({ ...r, firstSeen: old.get(resourceKey(r)) ?? this.now, status }))] as const;
      }),
    );
    await replaceResources(this.ctx.db, this.trx, this.org, rewritten);
  }

  /**
   * A key the file reported in an earlier batch too (the same advisory at two paths of an image,
   * far apart in the file): its new resources are added; its fields and status are those of its
   * first report.
   */
  private async addAgain(keys: readonly string[], group: Map<string, ScannedFinding>, rows: Map<string, ImportedState>): Promise<void> {
    if (keys.length === 0) return;
    const stored = await loadResources(
      this.trx,
      this.org,
      keys.map((k) => (rows.get(k) as ImportedState).id),
    );
    const additions: ImportedResourceRow[] = [];
    for (const key of keys) {
      const row = rows.get(key) as ImportedState;
      const have = stored.get(row.id) ?? [];
      const known = new Set(have.map(resourceKey));
      const room = Math.max(0, 100 - have.length);
      const missing = uniqueResources((group.get(key) as ScannedFinding).affectedResources).filter((r) => !known.has(resourceKey(r)));
      for (const r of missing.slice(0, room)) additions.push({ ...r, vulnerabilityId: row.id, firstSeen: this.now, status: row.status });
    }
    if (additions.length > 0) {
      await addResources(this.ctx.db, this.trx, this.org, additions);
      this.markChanged();
    }
  }

  /** Events: recorded in the transaction, their findings' IDs in the answer. */
  private async record(events: readonly NewEvent[]): Promise<void> {
    for (const event of events) this.result.findingIds.push(event.resourceId);
    await recordEvents(this.trx, this.org, events);
  }

  /** How many of the scope's findings of `source` are not closed, counted a part at a time with turns of the loop between. */
  private async openInScope(source: string): Promise<number> {
    let total = 0;
    let after = '';
    for (;;) {
      const { n, lastKey } = await countOpenInScope(this.trx, this.org, source, this.scope as string, after, COUNT_PART);
      total += n;
      if (n < COUNT_PART || lastKey === null) return total;
      after = lastKey;
      await shareTheLoop();
    }
  }

  /** Closes the scope's findings of `source` that the file did not report, a page at a time. */
  private async closeUnreported(source: string): Promise<void> {
    // Every finding of the scope that is not closed was reported (the usual re-import): no page to read.
    if ((await this.openInScope(source)) === (this.openReported.get(source) ?? 0)) return;
    let after = '';
    for (;;) {
      // each page is a few synchronous statements on SQLite: other requests get a turn in between
      await shareTheLoop();
      const page = await pageOpenInScope(this.trx, this.org, source, this.scope as string, after, CLOSE_PAGE);
      if (page.length === 0) return;
      after = page[page.length - 1]!.findingKey;
      const goneIds = page.filter((r) => !this.seen.has(`${source}\u0000${r.findingKey}`)).map((r) => r.id);
      if (goneIds.length === 0) continue;
      const gone = await findRowsByIds(this.trx, this.org, goneIds);
      const by = await this.events.stamp();
      await this.events.loadStamps(gone);
      await closeImported(
        this.trx,
        this.org,
        gone.map((r) => r.id),
        this.now,
        by,
      );
      await this.record(
        gone.map((row) =>
          this.events.updated(row, {
            ...row,
            status: 'closed',
            importStatus: 'closed',
            importDigest: row.importDigest,
            importJustification: row.importJustification,
            modifiedOn: this.now,
            lastModifiedBy: by,
          }),
        ),
      );
      this.result.closed += gone.length;
      this.markChanged();
      await this.nextSliceWhenDue();
    }
  }
}
