// What the program verbs (verbs.ts) and their pipeline (pipeline.ts) are given: who acts, and the
// document to plan or apply. Its own file so the pipeline's phases read it without importing the
// pipeline that calls them.
import type { BaseContext } from '../context.ts';
import type { StampActor } from '../people/actor-stamp.ts';
import type { DocumentCheck } from './precheck.ts';

/** What the program verbs need: the database and clock, who stamps the changes, and the markers to announce them. */
export interface ProgramContext extends BaseContext {
  /** who the changes are stamped with (actor-stamp.ts): the credential, the administrator, the service */
  stamp: StampActor;
}

export interface ProgramInput {
  organizationId: string;
  /** the parsed document (JSON or YAML): checked here */
  document: unknown;
  /** delete the records of the kinds the document covers that it does not list */
  prune?: boolean;
  /**
   * What precheckDocument (precheck.ts) found of this very document and prune, where it was parsed
   * (a worker thread): the pipeline then answers it instead of checking the entries again.
   */
  checked?: DocumentCheck;
}
