import type { Ref } from 'preact';
import { useRef } from 'preact/hooks';
import { getAuditLog } from '../api.ts';
import { DateTime } from '../components/date-time.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { LoadError, Loading } from '../components/status.tsx';
import { actionLabel, actorTypeLabel, shortenUserAgent, targetTypeLabel } from '../format.ts';
import type { AuditEntry } from '../types.ts';
import { usePages } from '../use-pages.tsx';
import { ScrollTable } from '../components/scroll-table.tsx';

export function AuditLogPage() {
  const state = usePages(getAuditLog);
  const { load } = state;
  const caption = useRef<HTMLTableCaptionElement>(null);
  const loadMoreButton = useRef<HTMLButtonElement>(null);

  async function loadMore() {
    if (state.loading || state.nextCursor === null) return;
    await load(state.nextCursor);
    // The button disappears on the last page; keep focus inside the table then.
    if (loadMoreButton.current === null || !loadMoreButton.current.isConnected) caption.current?.focus();
  }

  const entries = state.items;
  return (
    <>
      <PageHeading title="Audit log" />
      <p class="lead">Every administrator action in this console and the command line: who did what, when and from where.</p>
      {entries === undefined ? (
        state.error !== undefined ? (
          <LoadError what="the audit log" error={state.error} onRetry={() => load(null)} />
        ) : (
          <Loading>Loading the audit log…</Loading>
        )
      ) : entries.length === 0 ? (
        <p class="empty">No actions recorded yet.</p>
      ) : (
        <>
          <AuditTable entries={entries} captionRef={caption} busy={state.loading} />
          {state.error !== undefined && <LoadError what="more entries" error={state.error} onRetry={loadMore} />}
          {state.loading && <Loading>Loading more entries…</Loading>}
          {state.nextCursor !== null && (
            <p class="load-more">
              <button type="button" class="button-secondary" ref={loadMoreButton} onClick={loadMore} aria-busy={state.loading}>
                Load more
              </button>
            </p>
          )}
        </>
      )}
    </>
  );
}

function AuditTable({ entries, captionRef, busy }: { entries: AuditEntry[]; captionRef: Ref<HTMLTableCaptionElement>; busy: boolean }) {
  return (
    <ScrollTable
      caption="Administrator actions, newest first"
      captionRef={captionRef}
      busy={busy}
      columns={['When', 'Who', 'Action', 'Target', 'From']}
      label="Audit log entries"
    >
      {entries.map((entry) => (
        <tr key={entry.id}>
          <td class="nowrap">
            <DateTime ms={entry.at} withSeconds />
          </td>
          <td>
            <span class="cell-main">{entry.actor.label}</span>
            <span class="cell-sub">{actorTypeLabel(entry.actor.type)}</span>
          </td>
          <td>
            <span class={entry.action.endsWith('_failed') ? 'cell-main action-failed' : 'cell-main'}>{actionLabel(entry.action)}</span>
            <code class="cell-sub">{entry.action}</code>
          </td>
          <td>
            {entry.target === null ? (
              <span class="muted">None</span>
            ) : (
              <>
                <span class="cell-main" title={entry.target.id}>
                  {entry.target.label}
                </span>
                <span class="cell-sub">{targetTypeLabel(entry.target.type)}</span>
              </>
            )}
          </td>
          <td>
            {entry.ip !== null && <span class="cell-main">{entry.ip}</span>}
            {entry.userAgent !== null && (
              <span class={entry.ip === null ? 'cell-main' : 'cell-sub'} title={entry.userAgent}>
                {shortenUserAgent(entry.userAgent)}
              </span>
            )}
            {entry.ip === null && entry.userAgent === null && <span class="muted">Not recorded</span>}
          </td>
        </tr>
      ))}
    </ScrollTable>
  );
}
