// An organization's data is versioned per kind, so that a write makes unreachable only the cached
// answers it can change (result-cache.ts). This file holds the three decisions that must agree:
// the kinds, which kinds each write changes, and which kinds each cached answer reads.
//
// A kind is a set of stored rows:
// - controls: frameworks, requirements, controls, and what every kind links to and is mapped
//   through: people, entities, tickets, risks, control → artifact and artifact → requirement
//   mappings, custom field definitions;
// - policies, evidence, tests: the artifacts' own rows and the rows that hang from them
//   (documents and versions; attachments; resources, history and applications);
// - vulnerabilities: findings, their resources, and the assignees and custom field values whose
//   subject is a finding.
// A write bumps every kind whose rows it changes; an answer depends on every kind whose rows it
// reads. test/http/data-versions-property.test.ts checks, over random writes, that every answer
// then equals a freshly computed one.

export const DATA_KINDS = ['controls', 'policies', 'evidence', 'tests', 'vulnerabilities'] as const;
export type DataKind = (typeof DATA_KINDS)[number];

/** An organization's data version of each kind: a counter that grows with every write changing data of that kind. */
export type DataVersions = Readonly<Record<DataKind, number>>;

/** The kinds each write changes. */
export const WRITES = {
  /** a finding, its resources, assignee and custom field values */
  'vulnerabilities.create': ['vulnerabilities'],
  /** the same rows of one finding */
  'vulnerabilities.update': ['vulnerabilities'],
  /** an attachment and the record's status */
  'evidence.upload': ['evidence'],
  /** a pushed test result: the test, its resources and history */
  'tests.recordResult': ['tests'],
  /** a checker's report imported as the runs of the tests naming its checks */
  'tests.importResults': ['tests'],
  /** an evidence review or field change (approve, request revision, relevance, external links) */
  'evidence.update': ['evidence'],
  /** a policy lifecycle move or field change (documents, relevance, review) */
  'policies.update': ['policies'],
  /** a control's scope and assignees (assignees are links: the controls kind) */
  'controls.update': ['controls'],
  /** time: evidence going stale, policies falling due for review */
  'time.due': ['evidence', 'policies'],
  /** findings imported from a scanner's file */
  'vulnerabilities.import': ['vulnerabilities'],
  /** a program document: every kind it can touch */
  'program.apply': DATA_KINDS,
  /** what the organization may read: invalidates everything, out of caution (rare, by an operator) */
  'organizations.updatePlan': DATA_KINDS,
  /** a whole organization's data, loaded at once */
  'demo.load': DATA_KINDS,
} as const satisfies Record<string, readonly DataKind[]>;
export type DataWrite = keyof typeof WRITES;

const COMPLIANCE = ['controls', 'policies', 'evidence', 'tests'] as const;

/** The kinds each cached result reads (the `verb` given to cachedResult). */
export const READS = {
  // The controls snapshot's parts (controls/snapshot.ts). The artifact states of one kind are
  // loaded with the shared key strings of the control part, so they are kept with it too.
  'controls.snapshot.structure': ['controls'],
  'controls.snapshot.policyStates': ['controls', 'policies'],
  'controls.snapshot.evidenceStates': ['controls', 'evidence'],
  'controls.snapshot.testStates': ['controls', 'tests'],
  /** artifact → framework mappings for a set of frameworks */
  'controls.graph': ['controls'],
  'controls.list': COMPLIANCE,
  'controls.get': COMPLIANCE,
  'frameworks.list': COMPLIANCE,
  'policies.list': ['controls', 'policies'],
  'policies.get': ['controls', 'policies'],
  'evidence.list': ['controls', 'evidence'],
  /** shows the status of the tests linked to the record */
  'evidence.get': ['controls', 'evidence', 'tests'],
  'tests.list': ['controls', 'tests'],
  'tests.get': ['controls', 'tests'],
  'vulnerabilities.list': ['controls', 'vulnerabilities'],
  // the per-cell counts of vulnerability_counts: findings' own columns only
  'vulnerabilities.cells': ['vulnerabilities'],
  /** the custom field definitions of findings (the list's customFields) */
  'vulnerabilities.customFields': ['controls'],
  'vulnerabilities.get': ['controls', 'vulnerabilities'],
} as const satisfies Record<string, readonly DataKind[]>;
export type CachedVerb = keyof typeof READS;

/** The versions of a new organization. */
export const INITIAL_DATA_VERSIONS: DataVersions = Object.freeze(
  Object.fromEntries(DATA_KINDS.map((k) => [k, 0])) as Record<DataKind, number>,
);
