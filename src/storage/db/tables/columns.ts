// The column types every table shares: booleans are 0/1 in SQLite, times epoch milliseconds.
import type { ColumnType } from 'kysely';

export type Bool = ColumnType<boolean | number, boolean, boolean>;
export type Ms = number;

/** The kinds of record that links (people, entities, tickets, risks) can hang from. */
export type SubjectType = 'framework' | 'control' | 'policy' | 'evidence' | 'test' | 'test_resource' | 'vulnerability';
export type ArtifactType = 'policy' | 'evidence' | 'test';
