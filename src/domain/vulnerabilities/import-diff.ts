// The diff of one batch of a scanner import (./import-run.ts): each finding the file reports for the
// first time, against its stored state, is new (an insert), changed (an update, the whole row read
// after), or unchanged (nothing written, no event). Pure: the batch's reads and writes are the run's.
import { shareTheLoop } from '../../shared/event-loop-turns.ts';
import { validationFailed } from '../../shared/errors.ts';
import type {
  ImportedChange,
  ImportedResource,
  ImportedState,
  NewImportedFinding,
} from '../../storage/db/repositories/vulnerabilities/vulnerability-imports.ts';
import { digestOf, resourcesPart, scannedState, statusOf } from './import-plan.ts';
import type { ScannedFinding } from './scanned-finding.ts';

/** A finding's own fields: what a scan sets and a VEX statement leaves as they are. */
type FindingFields = Pick<ImportedChange, 'title' | 'severity' | 'cveId' | 'fixAvailable' | 'description' | 'remediation' | 'cvssScore'>;

/** The finding's own fields of `f` (a scanned state, a stored row, a change), and nothing else. */
export function findingFields<T extends FindingFields>(f: T): Pick<T, keyof FindingFields> {
  return {
    title: f.title,
    severity: f.severity,
    cveId: f.cveId,
    fixAvailable: f.fixAvailable,
    description: f.description,
    remediation: f.remediation,
    cvssScore: f.cvssScore,
  };
}

export interface BatchDiff {
  inserts: NewImportedFinding[];
  /** stamped (`lastModifiedBy`) and, for a statement, filled in from the whole row by the run */
  changes: ImportedChange[];
  /** per changed finding: its resources, when they changed */
  resourceRewrites: Map<string, ImportedResource[]>;
  unchanged: number;
  updated: number;
  closed: number;
  reopened: number;
  /** findings reported that are not closed after the batch */
  open: number;
}

export interface BatchInput {
  source: string;
  scope: string;
  now: number;
  /** the batch's findings by stored key */
  group: ReadonlyMap<string, ScannedFinding>;
  /** the keys the file reports here for the first time */
  fresh: readonly string[];
  /** the stored states of the batch's keys */
  rows: ReadonlyMap<string, ImportedState>;
}

/**
 * Validates and diffs the keys reported for the first time. A key that names a finding this scope's
 * imports did not write is refused: the file may not take over a finding made another way.
 * A batch of 500 took 5.5-17 ms of the event loop at once (each finding's state built and hashed),
 * the longest stretch of a dry run: it gives the loop its turns as it goes (issue 36).
 */
export async function diffBatch({ source, scope, now, group, fresh, rows }: BatchInput): Promise<BatchDiff> {
  const diff: BatchDiff = {
    inserts: [],
    changes: [],
    resourceRewrites: new Map(),
    unchanged: 0,
    updated: 0,
    closed: 0,
    reopened: 0,
    open: 0,
  };
  for (const key of fresh) {
    await shareTheLoop();
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
      if (status !== 'closed') diff.open += 1;
      diff.inserts.push({
        source,
        findingKey: key,
        ...findingFields(state),
        status,
        now,
        addedBy: '', // the stamp, by the run
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
    if (status !== 'closed') diff.open += 1;
    const digest = statement ? row.importDigest : digestOf(state);
    const justification = state.justification;
    if (
      status === row.status &&
      state.verdict === row.importStatus &&
      digest === row.importDigest &&
      justification === row.importJustification
    ) {
      diff.unchanged += 1;
      continue;
    }
    // A statement keeps the finding's fields: the run fills them in from its row.
    diff.changes.push({
      id: row.id,
      ...findingFields(state),
      status,
      keepFields: statement,
      importStatus: state.verdict,
      importDigest: digest,
      importJustification: justification,
      lastScannedOn: now,
      modifiedOn: now,
      lastModifiedBy: '', // the stamp, by the run
    });
    if (!statement && resourcesPart(digest) !== resourcesPart(row.importDigest)) diff.resourceRewrites.set(row.id, state.resources);
    if (row.status === 'closed' && status !== 'closed') diff.reopened += 1;
    else if (row.status !== 'closed' && status === 'closed') diff.closed += 1;
    else diff.updated += 1;
  }
  return diff;
}
