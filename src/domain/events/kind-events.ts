// What a program kind's changes record, typed: the events of events/schema.ts and the artifact
// changes of compliance-changes.ts. The kind contract (src/domain/kinds/kind.ts) leaves them open
// because it sits below the resources these types name; the kinds that record events and the
// engine (src/domain/program/registry.ts) both use this.
import type { KindEvents } from '../kinds/kind.ts';
import type { ArtifactChange } from './compliance-changes.ts';
import type { NewEvent } from './record.ts';

export type RecordedKindEvents = KindEvents<NewEvent, ArtifactChange>;
