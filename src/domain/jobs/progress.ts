// A running job's progress (issue 36: the CLI's bar, "parsed, written"): what the job has gone
// through, stored on its row so that GET /v1/jobs/{id} shows it on any node. Stored at most every
// JOB_PROGRESS_MS and at each change of stage, one write after the other, never waited for by the
// job itself: progress is for a person watching, and a write that fails only leaves an older count.
// Each store is one small UPDATE (on SQLite it moves the change stamp, as the job's own slices do).
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/db/schema.ts';
import { recordJobProgress } from '../../storage/db/repositories/service/jobs.ts';
import type { JobProgress } from './schema.ts';

/** How often a running job's progress is stored, at most. */
export const JOB_PROGRESS_MS = 1000;

/** What a job's verb is handed to say how far it has got. */
export type ReportProgress = (progress: JobProgress) => void;

export class JobProgressReporter {
  private latest: JobProgress | undefined;
  private storedAt = Number.NEGATIVE_INFINITY;
  private storedStage: JobProgress['stage'] | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly db: Kysely<Database>;
  private readonly id: string;
  private readonly owner: string;
  private readonly intervalMs: number;

  constructor(db: Kysely<Database>, id: string, owner: string, intervalMs = JOB_PROGRESS_MS) {
    this.db = db;
    this.id = id;
    this.owner = owner;
    this.intervalMs = intervalMs;
  }

  readonly report: ReportProgress = (progress) => {
    this.latest = progress;
    const now = performance.now();
    if (progress.stage === this.storedStage && now - this.storedAt < this.intervalMs) return;
    this.storedAt = now;
    this.storedStage = progress.stage;
    const json = JSON.stringify(progress);
    this.writing = this.writing.then(() =>
      recordJobProgress(this.db, this.id, this.owner, json).then(
        () => {},
        () => {}, // an older count stays shown; the job's own writes say whether the database is there
      ),
    );
  };

  /** The last progress reported (JSON), once the writes under way have ended: the job's end stores it. */
  async settled(): Promise<string | null> {
    await this.writing;
    return this.latest === undefined ? null : JSON.stringify(this.latest);
  }
}
