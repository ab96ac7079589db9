// The columns a table shows per resource: the ones that identify a record and say where it
// stands. On a narrow terminal (output/table.ts fitColumns) names and titles give way first, then
// the columns with a `drop` rank are left out, lowest first; IDs (what a user copies into the
// next command) are shortened in the middle only when nothing else is left to give.
import { type ColumnFit, formatValue, truncate } from './table.ts';

export const RESOURCES = ['frameworks', 'controls', 'policies', 'evidence', 'tests', 'vulnerabilities'] as const;
export type Resource = (typeof RESOURCES)[number];
/** What a table can list: the resources, and the change events (not a resource: never exported). */
export type Listing = Resource | 'events';

type Row = Record<string, any>;

export interface Column extends ColumnFit {
  header: string;
  cell(record: Row): string;
}

/** A field as it is; `max` makes it a name-like column (cut there, and first to give way). */
const field = (key: string, header: string, max?: number, fit: ColumnFit = {}): Column => ({
  header,
  kind: /Id$/.test(key) ? 'id' : max !== undefined ? 'text' : 'fixed',
  ...fit,
  cell: (r) => {
    const text = formatValue(key, r[key]);
    return max ? truncate(text, max) : text;
  },
});

const progress = (part: string, done: string, drop?: number): Column => ({
  header: part.toUpperCase(),
  drop,
  cell: (r) => {
    const p = r.complianceProgress?.[part];
    return p ? `${p[done]}/${p.total} ${p.percentage}%` : '-';
  },
});

const primaryAssignee: Column = {
  header: 'ASSIGNEE',
  kind: 'text',
  drop: 1,
  cell: (r) => {
    const people: Array<{ email: string; isPrimary?: boolean }> = r.assignees ?? [];
    const person = people.find((p) => p.isPrimary) ?? people[0];
    return person ? person.email + (people.length > 1 ? ` +${people.length - 1}` : '') : '-';
  },
};

/** An event's change in a few words: what a person scanning the feed wants to see (the JSON formats carry all of it). */
export function eventChange(e: Row): string {
  const d = e.data ?? {};
  switch (e.type) {
    case 'vulnerability.created':
      return [d.vulnerability?.severity, d.vulnerability?.status, d.vulnerability?.title].filter(Boolean).join(' · ') || '-';
    case 'vulnerability.updated':
      return Object.keys(d.changes ?? {}).join(', ') || '-';
    case 'evidence.attachments_added': {
      const files: unknown[] = d.attachments ?? [];
      return `${files.length} ${files.length === 1 ? 'file' : 'files'}`;
    }
    case 'framework.progress_changed': {
      const pct = (p: Row | undefined) => (typeof p?.controls?.percentage === 'number' ? `${p.controls.percentage}%` : '?');
      return `controls ${pct(d.before)} → ${pct(d.after)}`;
    }
    default:
      return typeof d.before === 'string' && typeof d.after === 'string' ? `${d.before} → ${d.after}` : '-';
  }
}

// `drop` ranks: 1 is left out first.
export const COLUMNS: Record<Listing, Column[]> = {
  frameworks: [
    field('frameworkId', 'FRAMEWORK ID'),
    field('frameworkName', 'NAME', 40),
    progress('controls', 'compliant', 5),
    progress('policies', 'published', 4),
    progress('evidence', 'uploaded', 3),
    progress('tests', 'passing', 2),
    field('nextAuditDate', 'NEXT AUDIT', undefined, { drop: 1 }),
  ],
  controls: [
    field('controlId', 'CONTROL ID'),
    field('controlCode', 'CODE', undefined, { drop: 5 }),
    field('controlName', 'NAME', 40),
    field('controlDomain', 'DOMAIN', 28, { drop: 2 }),
    field('functionGrouping', 'FUNCTION', undefined, { drop: 3 }),
    field('controlScope', 'SCOPE', undefined, { drop: 1 }),
    field('status', 'STATUS', undefined, { drop: 6 }),
    { header: '%', drop: 4, cell: (r) => (typeof r.controlCompliancePercentage === 'number' ? `${r.controlCompliancePercentage}%` : '-') },
  ],
  policies: [
    field('policyId', 'POLICY ID'),
    field('policyCustomId', 'CUSTOM ID', undefined, { drop: 3 }),
    field('policyName', 'NAME', 40),
    field('status', 'STATUS', undefined, { drop: 6 }),
    field('department', 'DEPARTMENT', undefined, { drop: 2 }),
    field('isRelevant', 'RELEVANT', undefined, { drop: 1 }),
    field('nextReviewDate', 'NEXT REVIEW', undefined, { drop: 5 }),
    field('gapStatus', 'GAPS', undefined, { drop: 4 }),
  ],
  evidence: [
    field('evidenceId', 'EVIDENCE ID'),
    field('evidenceName', 'NAME', 40),
    field('status', 'STATUS', undefined, { drop: 5 }),
    field('department', 'DEPARTMENT', undefined, { drop: 2 }),
    field('isRelevant', 'RELEVANT', undefined, { drop: 1 }),
    field('nextReviewDate', 'NEXT REVIEW', undefined, { drop: 4 }),
    field('gapCount', 'GAPS', undefined, { drop: 3 }),
  ],
  tests: [
    field('testId', 'TEST ID'),
    field('testName', 'NAME', 50),
    field('status', 'STATUS', undefined, { drop: 3 }),
    field('applications', 'APPLICATIONS', 30, { drop: 2 }),
    primaryAssignee,
  ],
  vulnerabilities: [
    field('vulnerabilityId', 'VULNERABILITY ID'),
    field('severity', 'SEVERITY', undefined, { drop: 5 }),
    field('status', 'STATUS', undefined, { drop: 4 }),
    field('source', 'SOURCE', undefined, { drop: 2 }),
    field('cveId', 'CVE', undefined, { kind: 'fixed', drop: 3 }),
    field('title', 'TITLE', 50),
    primaryAssignee,
  ],
  events: [
    field('occurredAt', 'OCCURRED AT'),
    field('type', 'TYPE'),
    field('resourceId', 'RESOURCE ID'),
    field('eventId', 'EVENT ID', undefined, { drop: 1 }),
    { header: 'CHANGE', kind: 'text', cell: (r) => truncate(eventChange(r), 60) },
  ],
};

/** The resource's columns, then one per optional field asked for with --fields. */
export function columnsFor(resource: Listing, extraFields: string[] = []): Column[] {
  const base = COLUMNS[resource];
  // asked for by name, so kept; they give way like names
  return [...base, ...extraFields.map((f) => field(f, f, 40, { kind: 'text' }))];
}
