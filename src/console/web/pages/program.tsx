// Program documents (issue 25): an administrator uploads a document (YAML or JSON), reads the plan
// of what applying it would change, and confirms. The plan is made by the service with nothing
// written; "Apply" sends the same text again and the service applies it in one transaction (an
// apply that changes something is in the audit log). Problems are listed with their line and column.
import { useId, useState } from 'preact/hooks';
import { type ApiError, programDocument, toApiError } from '../api.ts';
import { ConfirmDialog } from '../components/confirm-dialog.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import type { ProgramPlan } from '../types.ts';

interface Upload {
  name: string;
  text: string;
}

const SIGN = { create: '+', update: '~', delete: '−' } as const;

function shown(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function PlanView({ plan, applied }: { plan: ProgramPlan; applied: boolean }) {
  const kinds = Object.entries(plan.counts);
  const moves = plan.effects.frameworks.flatMap((f) =>
    (Object.keys(f.after) as Array<keyof typeof f.after>)
      .filter((part) => f.before[part].percentage !== f.after[part].percentage)
      .map((part) => ({ key: `${f.key}-${part}`, text: `${f.key} ${part}: ${f.before[part].percentage}% → ${f.after[part].percentage}%` })),
  );
  return (
    <section class="card" aria-live="polite" data-testid="program-plan">
      <h2>{applied ? 'Applied' : plan.changed ? 'Plan' : 'No changes'}</h2>
      {!plan.changed && <p>The organization already holds this program: applying it would change nothing.</p>}
      {kinds.length > 0 && (
        <table>
          <caption>Records per kind</caption>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Created</th>
              <th scope="col">Updated</th>
              <th scope="col">Deleted</th>
              <th scope="col">Unchanged</th>
            </tr>
          </thead>
          <tbody>
            {kinds.map(([kind, c]) => (
              <tr key={kind}>
                <th scope="row">{kind}</th>
                <td>{c.created}</td>
                <td>{c.updated}</td>
                <td>{c.deleted}</td>
                <td>{c.unchanged}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {plan.changes.length > 0 && (
        <>
          <h3>Changes</h3>
          <ul class="plan-changes">
            {plan.changes.map((change) => (
              <li key={`${change.kind}/${change.key}`}>
                <code>
                  {SIGN[change.action]} {change.kind} {change.key}
                </code>
                {change.action === 'update' && (
                  <ul>
                    {Object.entries(change.fields ?? {}).map(([field, diff]) => (
                      <li key={field}>
                        <code>
                          {field}: {shown(diff.before)} → {shown(diff.after)}
                        </code>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {plan.effects.controls.length > 0 && (
        <>
          <h3>Controls whose status flips</h3>
          <ul>
            {plan.effects.controls.map((c) => (
              <li key={c.controlId}>
                {c.key}: {c.before} → {c.after}
              </li>
            ))}
          </ul>
        </>
      )}
      {moves.length > 0 && (
        <>
          <h3>Framework percentages that move</h3>
          <ul>
            {moves.map((m) => (
              <li key={m.key}>{m.text}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function Problems({ error }: { error: ApiError }) {
  return (
    <div class="form-error" role="alert" data-testid="program-problems">
      <p>{error.message}</p>
      {error.details.length > 0 && (
        <ul>
          {error.details.map((d, i) => (
            <li key={i}>
              {d.line !== undefined ? `line ${d.line}, column ${d.column}: ` : ''}
              <code>{d.field === '' ? '(the document)' : d.field}</code> {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function ProgramPage() {
  const [upload, setUpload] = useState<Upload | null>(null);
  const [prune, setPrune] = useState(false);
  const [plan, setPlan] = useState<ProgramPlan | null>(null);
  const [applied, setApplied] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<object | null>(null);
  const fileId = useId();
  const pruneId = useId();

  async function choose(event: Event) {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    setPlan(null);
    setApplied(false);
    setError(null);
    setUpload(file ? { name: file.name, text: await file.text() } : null);
  }

  async function makePlan(event: Event) {
    event.preventDefault();
    if (upload === null) return;
    setBusy(true);
    setError(null);
    setApplied(false);
    try {
      setPlan(await programDocument('plan', upload.text, upload.name, prune));
    } catch (err) {
      setPlan(null);
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <PageHeading title="Program" />
      <p class="lead">
        Bring your compliance program as one document (YAML or JSON, as <code>cds program export</code> writes it): upload it, read what
        applying it would change, then apply it. Records the document does not list stay unless you prune; an apply is all or nothing.
      </p>
      <section class="card">
        <h2>Upload a document</h2>
        <form onSubmit={makePlan}>
          <p>
            <label for={fileId}>Program document</label>
            <input id={fileId} type="file" accept=".yaml,.yml,.json" onChange={choose} data-testid="program-file" />
          </p>
          <p>
            <input id={pruneId} type="checkbox" checked={prune} onChange={(e) => setPrune((e.currentTarget as HTMLInputElement).checked)} />{' '}
            <label for={pruneId}>Also delete the records of the kinds the document covers that it does not list (prune)</label>
          </p>
          <button type="submit" disabled={upload === null || busy}>
            {busy ? 'Planning…' : 'Plan'}
          </button>
        </form>
      </section>
      {error !== null && <Problems error={error} />}
      {plan !== null && <PlanView plan={plan} applied={applied} />}
      {plan?.changed && !applied && (
        <p>
          <button type="button" onClick={() => setConfirming({})} data-testid="program-apply">
            Apply…
          </button>
        </p>
      )}
      <ConfirmDialog
        open={confirming}
        title="Apply the program document?"
        description={
          <>
            The changes above are made to your organization in one transaction
            {prune ? ', including the deletions' : ''}. If anything changed since the plan, the apply does what the document says now.
          </>
        }
        confirmLabel="Apply"
        danger={prune}
        onConfirm={() => programDocument('apply', upload!.text, upload!.name, prune)}
        onConfirmed={(result) => {
          setPlan(result);
          setApplied(true);
        }}
        onClose={() => setConfirming(null)}
      />
    </>
  );
}
