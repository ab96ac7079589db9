// Wakes this process's delivery worker when a local transaction enqueued deliveries, so they go
// out without waiting for the next poll. The enqueue runs inside the write's transaction, before
// its commit, and the worker may look before the rows are visible: it then looks again a few
// times within ~100 ms (worker.ts). Other nodes hear of the rows at commit on PostgreSQL
// (storage/db/delivery-announcements.ts), and find them with their poll on SQLite.

type Listener = () => void;
const listeners = new Set<Listener>();

export function onDeliveriesEnqueued(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function nudgeDeliveryWorkers(): void {
  for (const listener of listeners) listener();
}
