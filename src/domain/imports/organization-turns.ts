// One bulk write of an organization at a time in this process, waited for in memory (issue 36).
// The database serializes an organization's writes anyway (its row lock on PostgreSQL:
// lockOrganization), but a write that waits there holds a pooled connection while it waits: ten
// imports of one organization at once held nine of the ten connections doing nothing, and another
// organization's write waited for a connection (0.7-2 s with a pool of three:
// test/http/import-queue.test.ts). Waiting here first, an import takes a connection only when its
// turn has come on this node; the database's lock still decides between nodes. The wait is bounded
// as the lock's is (ORGANIZATION_LOCK_WAIT_MS, then the same 429).
import { ORGANIZATION_LOCK_WAIT_MS, organizationBusy } from '../../storage/db/repositories/organizations/organizations.ts';

export class OrganizationTurns {
  /** per organization, the end of the last turn queued */
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `work` when the organization's earlier turns on this node have ended. */
  async run<T>(organizationId: string, work: () => Promise<T>, waitMs = ORGANIZATION_LOCK_WAIT_MS): Promise<T> {
    const before = this.#tails.get(organizationId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    // the next turn begins when this one has ended, and never before the ones queued earlier
    const tail = before.then(() => mine);
    this.#tails.set(organizationId, tail);
    try {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), waitMs);
      });
      const waited = await Promise.race([before.then(() => 'ready' as const), late]);
      clearTimeout(timer);
      if (waited === 'late') throw organizationBusy();
      return await work();
    } finally {
      release();
      if (this.#tails.get(organizationId) === tail) this.#tails.delete(organizationId);
    }
  }
}
