// The columns a table shows per resource: the ones that identify a record and say where it
// stands. IDs are never shortened (they are what a user copies into the next command); names and
// titles are, to keep a row on one line.
import { formatValue, truncate } from './table.ts';

export const RESOURCES = ['frameworks', 'controls', 'policies', 'evidence', 'tests', 'vulnerabilities'] as const;
export type Resource = (typeof RESOURCES)[number];
/** What a table can list: the resources, and the change events (not a resource: never exported). */
export type Listing = Resource | 'events';

type Row = Record<string, any>;

export interface Column {
  header: string;
  cell(record: Row): string;
  /** may be shortened to fit the terminal (names, titles; never IDs) */
  shrinkable?: boolean;
}

const field = (key: string, header: string, max?: number): Column => ({
  header,
  shrinkable: max !== undefined,
  cell: (r) => {
    const text = formatValue(key, r[key]);
    return max ? truncate(text, max) : text;
  },
});

const progress = (part: string, done: string): Column => ({
  header: part.toUpperCase(),
  cell: (r) => {
    const p = r.complianceProgress?.[part];
    return p ? `${p[done]}/${p.total} ${p.percentage}%` : '-';
  },
});

const primaryAssignee: Column = {
  header: 'ASSIGNEE',
  shrinkable: true,
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

export const COLUMNS: Record<Listing, Column[]> = {
  frameworks: [
    field('frameworkId', 'FRAMEWORK ID'),
    field('frameworkName', 'NAME', 40),
    progress('controls', 'compliant'),
    progress('policies', 'published'),
    progress('evidence', 'uploaded'),
    progress('tests', 'passing'),
    field('nextAuditDate', 'NEXT AUDIT'),
  ],
  controls: [
    field('controlId', 'CONTROL ID'),
    field('controlCode', 'CODE'),
    field('controlName', 'NAME', 40),
    field('controlDomain', 'DOMAIN', 28),
    field('functionGrouping', 'FUNCTION'),
    field('controlScope', 'SCOPE'),
    field('status', 'STATUS'),
    { header: '%', cell: (r) => (typeof r.controlCompliancePercentage === 'number' ? `${r.controlCompliancePercentage}%` : '-') },
  ],
  policies: [
    field('policyId', 'POLICY ID'),
    field('policyCustomId', 'CUSTOM ID'),
    field('policyName', 'NAME', 40),
    field('status', 'STATUS'),
    field('department', 'DEPARTMENT'),
    field('isRelevant', 'RELEVANT'),
    field('nextReviewDate', 'NEXT REVIEW'),
    field('gapStatus', 'GAPS'),
  ],
  evidence: [
    field('evidenceId', 'EVIDENCE ID'),
    field('evidenceName', 'NAME', 40),
    field('status', 'STATUS'),
    field('department', 'DEPARTMENT'),
    field('isRelevant', 'RELEVANT'),
    field('nextReviewDate', 'NEXT REVIEW'),
    field('gapCount', 'GAPS'),
  ],
  tests: [
    field('testId', 'TEST ID'),
    field('testName', 'NAME', 50),
    field('status', 'STATUS'),
    field('applications', 'APPLICATIONS', 30),
    primaryAssignee,
  ],
  vulnerabilities: [
    field('vulnerabilityId', 'VULNERABILITY ID'),
    field('severity', 'SEVERITY'),
    field('status', 'STATUS'),
    field('source', 'SOURCE'),
    field('cveId', 'CVE'),
    field('title', 'TITLE', 50),
    primaryAssignee,
  ],
  events: [
    field('occurredAt', 'OCCURRED AT'),
    field('type', 'TYPE'),
    field('resourceId', 'RESOURCE ID'),
    field('eventId', 'EVENT ID'),
    { header: 'CHANGE', shrinkable: true, cell: (r) => truncate(eventChange(r), 60) },
  ],
};

/** The resource's columns, then one per optional field asked for with --fields. */
export function columnsFor(resource: Listing, extraFields: string[] = []): Column[] {
  const base = COLUMNS[resource];
  return [...base, ...extraFields.map((f) => field(f, f, 40))];
}
