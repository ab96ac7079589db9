// In-process wake-up of this node's JobWorker when a request of this process queued a job (other
// nodes find it at their next poll, JOB_POLL_MS). Called after the job's commit, so the worker
// always sees the row.
type Listener = () => void;
const listeners = new Set<Listener>();

export function onJobQueued(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function jobQueued(): void {
  for (const listener of listeners) listener();
}
