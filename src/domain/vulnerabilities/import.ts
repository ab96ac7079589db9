// Imports a scanner's file (issue 27; docs/decisions/program-writes.md, "Scanner imports"). The
// write pipeline: the file is first spooled to the blob store as it arrives (import-spool.ts:
// metered, hashed, nothing locked: issue 36), then parsed as it streams back from there
// (src/formats/), each finding checked and keyed in
// its scope, read against the stored findings in batches, and only what changed is written, in
// bulk, in the one transaction of the request, with the events built from the same diff. Findings
// of the scope and source that the file no longer reports are closed at the end. A failure
// anywhere (a malformed entry late in the file, the size limit) rolls everything back.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import { authorize } from '../auth/scopes.ts';
import { validationFailed } from '../../shared/errors.ts';
import { fingerprintSubject, jsonFingerprint } from '../idempotency/fingerprint.ts';
import { keyScopeOf, runIdempotent, type IdempotencyInput, type Outcome } from '../idempotency/run.ts';
import { announceOrganizationChange } from '../auth/state-markers.ts';
import { WRITES } from '../../shared/data-versions.ts';
import { changedFields } from '../events/changes.ts';
import { recordEvents, type NewEvent } from '../events/record.ts';
import { bumpDataVersions, lockOrganization } from '../../storage/db/repositories/organizations/organizations.ts';
import { listCustomFieldDefinitions } from '../../storage/db/repositories/vulnerabilities/vulnerabilities.ts';
import {
  addResources,
  closeImported,
  countOpenInScope,
  findPersonStamps,
  findRowsByIds,
  findStatesByKeys,
  insertImported,
  loadResources,
  pageOpenInScope,
  replaceResources,
  updateImported,
  type ImportedChange,
  type ImportedResource,
  type ImportedRow,
  type ImportedState,
  type NewImportedFinding,
} from '../../storage/db/repositories/vulnerabilities/vulnerability-imports.ts';
import type { Database } from '../../storage/db/schema.ts';
import { nameText } from '../../formats/scanners/bounds.ts';
import { isScannerFormat, parseScan, unknownFormatIssue, type ScannerFormat } from '../../formats/scanners/formats.ts';
import { MAX_HELD } from '../../formats/scanners/held.ts';
import { sourceOfTool } from '../../formats/scanners/source.ts';
import { actorPersonId } from '../people/actor-stamp.ts';
import { detailOfRow } from './get.ts';
import type { VulnerabilityRow } from '../../storage/db/repositories/vulnerabilities/vulnerabilities.ts';
import { DEFAULT_IMPORT_JOB_THRESHOLD_BYTES } from '../../config.ts';
import { DEFAULT_IMPORT_MAX_BYTES, type ImportResult } from './import-schema.ts';
import { acceptJob, replayedAsNow } from '../jobs/accept.ts';
import type { Job } from '../jobs/schema.ts';
import { readSpool, removeSpool, spoolBody } from './import-spool.ts';
import { digestOf, mergeFindings, resourcesPart, scannedState, scopedKey, statusOf, uniqueResources } from './import-plan.ts';
import type { ScannedFinding, ScanSummary } from './scanned-finding.ts';
import type { CustomField } from './schema.ts';
import { mergeCustomFields, type VulnerabilitySource } from './shape.ts';

export interface ImportInput {
  format: string;
  scope?: string;
  body: AsyncIterable<Uint8Array | string>;
  idempotency: IdempotencyInput;
  /** `Prefer: respond-async` (RFC 7240): accept the import as a job whatever the file's size */
  respondAsync?: boolean;
}

/** What a job of kind `vulnerabilities.import` runs on (the jobs row's `input`). */
export interface ImportJobInput {
  format: ScannerFormat;
  scope: string | null;
  /** the spooled file's blob key, and its SHA-256 */
  spool: string;
  sha256: string;
}

/** Findings read, checked and written together: one read of the stored ones, one insert, one event batch. */
const BATCH = 500;
/** Findings of the scope's page read at once when closing what the file no longer reports. */
const CLOSE_PAGE = 1000;
/** Formats whose files never name a scope: their findings need not wait for one. */
const SCOPELESS: ReadonlySet<ScannerFormat> = new Set(['osv', 'openvex']);

/**
 * The import's answer: its result (200), or, for a file above IMPORT_JOB_THRESHOLD_BYTES or a
 * request that prefers it, the job that will run it (202; domain/jobs/).
 */
export async function importVulnerabilities({ ctx, input }: { ctx: Context; input: ImportInput }): Promise<Outcome<ImportResult | Job>> {
  authorize(ctx.actor, 'vulnerability', 'write');
  const org = ctx.actor.organizationId;
  if (!isScannerFormat(input.format)) throw validationFailed([unknownFormatIssue(input.format)]);
  const format = input.format;
  let requestScope: string | undefined;
  if (input.scope !== undefined) {
    requestScope = nameText(input.scope);
    if (!requestScope || requestScope !== input.scope.trim())
      throw validationFailed([{ field: 'scope', message: 'must be one line of at most 255 characters, not blank' }]);
  }
  // Spooled before the claim, the transaction or the lock: a slow client holds none of them.
  const spooled = await spoolBody(ctx.blobs, {
    organizationId: org,
    now: ctx.now(),
    format,
    maxBytes: ctx.importMaxBytes ?? DEFAULT_IMPORT_MAX_BYTES,
    body: input.body,
  });
  let keepSpool = false;
  try {
    const fingerprint = jsonFingerprint(fingerprintSubject('vulnerabilities.import', ''), {
      format,
      scope: requestScope ?? null,
      sha256: spooled.sha256,
    });
    if (input.respondAsync || spooled.size > (ctx.importJobThresholdBytes ?? DEFAULT_IMPORT_JOB_THRESHOLD_BYTES)) {
      const job: ImportJobInput = { format, scope: requestScope ?? null, spool: spooled.key, sha256: spooled.sha256 };
      const outcome = await acceptJob(ctx, input.idempotency, fingerprint, { kind: 'vulnerabilities.import', input: job });
      // A new job owns the spool now; a replay's spool is this request's copy only.
      keepSpool = !outcome.replayed;
      return outcome;
    }
    let changed = false;
    const outcome = await runIdempotent(keyScopeOf(ctx, input.idempotency), [fingerprint], async (trx) => {
      const run = new ImportRun(ctx, trx as Kysely<Database>, format, requestScope);
      const result = await run.execute(readSpool(ctx.blobs, spooled));
      changed = run.changed;
      return { kind: 'updated' as const, resource: result };
    });
    // Committed: every node reads the new data version before this is acknowledged.
    if (changed) await announceOrganizationChange(ctx, org);
    // the key may have been bound to a job by an earlier request (sent with Prefer: respond-async)
    return replayedAsNow<ImportResult | Job>(ctx, outcome);
  } finally {
    if (!keepSpool) await removeSpool(ctx.blobs, spooled);
  }
}

/**
 * Runs an import accepted as a job (domain/jobs/worker.ts) as the credential that sent it: the same
 * pipeline from the same spooled file, in one transaction of its own (the key was bound to the
 * job). A re-run after a dead node converges, the import being a diff. The caller removes the spool.
 */
export async function runImportJob(ctx: Context, job: ImportJobInput): Promise<ImportResult> {
  authorize(ctx.actor, 'vulnerability', 'write');
  let changed = false;
  const result = await ctx.db.kysely.transaction().execute(async (trx) => {
    const run = new ImportRun(ctx, trx as Kysely<Database>, job.format, job.scope ?? undefined);
    const result = await run.execute(readSpool(ctx.blobs, { key: job.spool }));
    changed = run.changed;
    return result;
  });
  if (changed) await announceOrganizationChange(ctx, ctx.actor.organizationId);
  return result;
}

/** One import inside its transaction: the counts, the keys reported, and the batch being read. */
class ImportRun {
  private readonly org: string;
  private readonly now: number;
  private scope: string | undefined;
  private live: Readonly<ScanSummary> | undefined;
  /** `source \0 key` of every finding the file reported: what is not among them is closed */
  private readonly seen = new Set<string>();
  private batch = new Map<string, ScannedFinding>();
  private readonly held: ScannedFinding[] = [];
  private customFields: CustomField[] = [];
  private firstSource: string | undefined;
  /** per source: findings the file reported that are not closed after it (all open ones reported: nothing to close) */
  private readonly openReported = new Map<string, number>();
  private readonly result = { created: 0, updated: 0, closed: 0, reopened: 0, unchanged: 0, findingIds: [] as string[] };
  changed = false;
  /** the person row stamping this import's changes, and what GET shows of the people stamps seen */
  private stampId: string | undefined;
  private readonly stamps = new Map<string, { name: string; email: string }>();

  private readonly ctx: Context;
  private readonly trx: Kysely<Database>;
  private readonly format: ScannerFormat;

  constructor(ctx: Context, trx: Kysely<Database>, format: ScannerFormat, requestScope: string | undefined) {
    this.ctx = ctx;
    this.trx = trx;
    this.format = format;
    this.org = ctx.actor.organizationId;
    this.now = ctx.now();
    this.scope = requestScope ?? (SCOPELESS.has(format) ? '' : undefined);
  }

  async execute(chunks: AsyncIterable<Uint8Array>): Promise<ImportResult> {
    // First: concurrent imports (and other writes) of the organization run one after the other.
    await lockOrganization(this.trx, this.org);
    this.customFields = mergeCustomFields(await listCustomFieldDefinitions(this.trx, this.org, 'vulnerability'), undefined);
    const findings = parseScan(this.format, chunks, (summary) => (this.live = summary));
    let summary: ScanSummary;
    for (;;) {
      const step = await findings.next();
      if (step.done) {
        summary = step.value;
        break;
      }
      await this.take(step.value);
    }
    if (this.scope === undefined) this.scope = summary.scope ?? '';
    for (const finding of this.held.splice(0)) await this.add(finding);
    await this.flush();
    const source = (this.firstSource ?? sourceOfTool(summary.tool ?? '')) as VulnerabilitySource;
    // A VEX document says what is true of findings; it is not a scan, so its silence closes nothing.
    if (this.format !== 'openvex') {
      for (const s of new Set([source, ...this.sourcesSeen()])) await this.closeUnreported(s);
    }
    if (this.changed) await bumpDataVersions(this.trx, this.org, WRITES['vulnerabilities.import']);
    return { format: this.format, scope: this.scope === '' ? null : this.scope, source, ...this.result };
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
      this.scope = this.live.scope;
      for (const h of this.held.splice(0)) await this.add(h);
    }
    await this.add(finding);
  }

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

  /** Diffs one batch of one source with the stored findings and writes what changed. */
  private async write(source: string, group: Map<string, ScannedFinding>): Promise<void> {
    const scope = this.scope as string;
    this.firstSource ??= source;
    const keys = [...group.keys()];
    const again = keys.filter((k) => this.seen.has(`${source}\u0000${k}`));
    const fresh = keys.filter((k) => !this.seen.has(`${source}\u0000${k}`));
    const rows = new Map((await findStatesByKeys(this.trx, this.org, source, keys)).map((r) => [r.findingKey, r]));

    const inserts: NewImportedFinding[] = [];
    const updates: ImportedChange[] = [];
    const resourceRewrites = new Map<string, ImportedResource[]>();
    const events: NewEvent[] = [];
    const changedRows: ImportedChange[] = [];
    let open = 0;
    for (const key of fresh) {
      const finding = group.get(key) as ScannedFinding;
      const row = rows.get(key);
      if (row && row.importScope !== scope) {
        throw validationFailed([
          {
            field: finding.at,
            message: `gives the finding key ${key} of source ${source}, which already names a finding this scope’s imports did not write (created another way, or in another scope); it is left as it is`,
          },
        ]);
      }
      const state = scannedState(finding, scope);
      if (!row) {
        const status = statusOf(undefined, state.verdict);
        if (status !== 'closed') open += 1;
        inserts.push({
          source,
          findingKey: key,
          title: state.title,
          status,
          severity: state.severity,
          cveId: state.cveId,
          fixAvailable: state.fixAvailable,
          description: state.description,
          remediation: state.remediation,
          cvssScore: state.cvssScore,
          now: this.now,
          addedBy: '', // the stamp, below
          importScope: scope,
          importStatus: state.verdict,
          importDigest: digestOf(state),
          importJustification: state.justification,
          resources: state.resources,
        });
        continue;
      }
      // A VEX statement about a finding already known changes its status only.
      const statement = finding.evidence === 'statement';
      const status = statusOf(row, state.verdict);
      if (status !== 'closed') open += 1;
      const digest = statement ? row.importDigest : digestOf(state);
      const justification = state.justification;
      if (
        status === row.status &&
        state.verdict === row.importStatus &&
        digest === row.importDigest &&
        justification === row.importJustification
      ) {
        this.result.unchanged += 1;
        continue;
      }
      // A statement keeps the finding's fields: they are filled in from its row below.
      const change: ImportedChange = {
        id: row.id,
        title: state.title,
        status,
        severity: state.severity,
        cveId: state.cveId,
        fixAvailable: state.fixAvailable,
        description: state.description,
        remediation: state.remediation,
        cvssScore: state.cvssScore,
        keepFields: statement,
        importStatus: state.verdict,
        importDigest: digest,
        importJustification: justification,
        lastScannedOn: this.now,
        modifiedOn: this.now,
        lastModifiedBy: '', // the stamp, below
      };
      changedRows.push(change);
      if (!statement && resourcesPart(digest) !== resourcesPart(row.importDigest)) resourceRewrites.set(row.id, state.resources);
      if (row.status === 'closed' && status !== 'closed') this.result.reopened += 1;
      else if (row.status !== 'closed' && status === 'closed') this.result.closed += 1;
      else this.result.updated += 1;
    }
    // The changed findings' whole rows: their events show the fields before and after.
    const fullRows = new Map(
      (
        await findRowsByIds(
          this.trx,
          this.org,
          changedRows.map((c) => c.id),
        )
      ).map((r) => [r.id, r]),
    );
    const by = changedRows.length + inserts.length > 0 ? await this.stamp() : '';
    await this.loadStamps([...fullRows.values()]);
    for (const change of changedRows) {
      const row = fullRows.get(change.id) as ImportedRow;
      const update = change.keepFields
        ? {
            ...change,
            lastModifiedBy: by,
            title: row.title,
            severity: row.severity,
            cveId: row.cveId,
            fixAvailable: row.fixAvailable,
            description: row.description,
            remediation: row.remediation,
            cvssScore: row.cvssScore,
          }
        : { ...change, lastModifiedBy: by };
      updates.push(update);
      events.push(this.updatedEvent(row, update));
    }

    // Written: new findings in bulk, changed ones each, resources that changed replaced.
    for (const f of inserts) f.addedBy = by;
    const ids = await insertImported(this.ctx.db, this.trx, this.org, inserts);
    inserts.forEach((f, i) => {
      const detail = this.detail({
        id: ids[i] as string,
        source,
        findingKey: f.findingKey,
        title: f.title,
        status: f.status,
        severity: f.severity,
        cveId: f.cveId,
        fixAvailable: f.fixAvailable,
        description: f.description,
        remediation: f.remediation,
        stepsToReproduce: null,
        firstSeen: this.now,
        lastScannedOn: this.now,
        cvssScore: f.cvssScore,
        sla: null,
        reportLink: null,
        addedBy: by,
        addedOn: this.now,
        lastModifiedBy: null,
        modifiedOn: null,
      });
      events.push({
        type: 'vulnerability.created',
        resourceId: detail.vulnerabilityId,
        occurredAt: this.now,
        data: { vulnerability: detail },
      });
    });
    this.result.created += inserts.length;
    await updateImported(this.trx, this.org, updates);
    if (resourceRewrites.size > 0) {
      // Resources still reported keep when they were first seen.
      const before = await loadResources(this.trx, this.org, [...resourceRewrites.keys()]);
      const rewritten = new Map(
        [...resourceRewrites].map(([id, list]) => {
          const old = new Map((before.get(id) ?? []).map((r) => [`${r.type}\u0000${r.name}`, r.firstSeen]));
          return [id, list.map((r) => ({ ...r, firstSeen: old.get(`${r.type}\u0000${r.name}`) ?? this.now }))] as const;
        }),
      );
      await replaceResources(this.ctx.db, this.trx, this.org, rewritten);
    }
    await this.addAgain(again, group, rows);
    for (const event of events) this.result.findingIds.push(event.resourceId);
    await recordEvents(this.trx, this.org, events);
    if (inserts.length + updates.length > 0) this.changed = true;
    for (const key of fresh) this.seen.add(`${source}\u0000${key}`);
    this.openReported.set(source, (this.openReported.get(source) ?? 0) + open);
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
    const additions: (ImportedResource & { vulnerabilityId: string; firstSeen: number })[] = [];
    for (const key of keys) {
      const row = rows.get(key) as ImportedState;
      const have = stored.get(row.id) ?? [];
      const known = new Set(have.map((r) => `${r.type}\u0000${r.name}`));
      const room = Math.max(0, 100 - have.length);
      const missing = uniqueResources((group.get(key) as ScannedFinding).affectedResources).filter(
        (r) => !known.has(`${r.type}\u0000${r.name}`),
      );
      for (const r of missing.slice(0, room)) additions.push({ ...r, vulnerabilityId: row.id, firstSeen: this.now });
    }
    if (additions.length > 0) {
      await addResources(this.ctx.db, this.trx, this.org, additions);
      this.changed = true;
    }
  }

  /** The actor's person row, made on the first change (an unchanged import writes nothing, not even it). */
  private async stamp(): Promise<string> {
    if (this.stampId === undefined) {
      this.stampId = await actorPersonId(this.trx, this.org, { kind: 'credential', credentialId: this.ctx.actor.credentialId });
      for (const [id, stamp] of await findPersonStamps(this.trx, this.org, [this.stampId])) this.stamps.set(id, stamp);
    }
    return this.stampId;
  }

  /** Loads the stamps of the people these rows name that are not known yet. */
  private async loadStamps(rows: readonly ImportedRow[]): Promise<void> {
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

  private updatedEvent(row: ImportedRow, change: ImportedChange): NewEvent {
    const before = this.detail(row);
    const after = this.detail({
      ...row,
      title: change.title,
      status: change.status,
      severity: change.severity,
      cveId: change.cveId,
      fixAvailable: change.fixAvailable,
      description: change.description,
      remediation: change.remediation,
      cvssScore: change.cvssScore,
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

  /** Closes the scope's findings of `source` that the file did not report, a page at a time. */
  private async closeUnreported(source: string): Promise<void> {
    // Every finding of the scope that is not closed was reported (the usual re-import): no page to read.
    if ((await countOpenInScope(this.trx, this.org, source, this.scope as string)) === (this.openReported.get(source) ?? 0)) return;
    let after = '';
    for (;;) {
      const page = await pageOpenInScope(this.trx, this.org, source, this.scope as string, after, CLOSE_PAGE);
      if (page.length === 0) return;
      after = page[page.length - 1]!.findingKey;
      const goneIds = page.filter((r) => !this.seen.has(`${source}\u0000${r.findingKey}`)).map((r) => r.id);
      if (goneIds.length === 0) continue;
      const gone = await findRowsByIds(this.trx, this.org, goneIds);
      const by = await this.stamp();
      await this.loadStamps(gone);
      await closeImported(
        this.trx,
        this.org,
        gone.map((r) => r.id),
        this.now,
        by,
      );
      const events = gone.map((row) =>
        this.updatedEvent(row, {
          ...row,
          status: 'closed',
          importStatus: 'closed',
          importDigest: row.importDigest,
          importJustification: row.importJustification,
          modifiedOn: this.now,
          lastModifiedBy: by,
        }),
      );
      for (const event of events) this.result.findingIds.push(event.resourceId);
      await recordEvents(this.trx, this.org, events);
      this.result.closed += gone.length;
      this.changed = true;
    }
  }
}
