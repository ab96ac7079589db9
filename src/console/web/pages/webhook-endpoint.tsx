import { useCallback, useId, useRef, useState } from 'preact/hooks';
import {
  type ApiError,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  redeliverWebhookDelivery,
  rotateWebhookSecret,
  sendWebhookTestEvent,
  toApiError,
  updateWebhookEndpoint,
} from '../api.ts';
import { ConfirmDialog } from '../components/confirm-dialog.tsx';
import { DateTime } from '../components/date-time.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { FormError, LoadError, Loading } from '../components/status.tsx';
import { EndpointStatusBadge } from '../components/webhook-badges.tsx';
import { WebhookDeliveriesTable } from '../components/webhook-deliveries-table.tsx';
import { type EndpointValues, WebhookEndpointForm } from '../components/webhook-endpoint-form.tsx';
import { WebhookSecretPanel } from '../components/webhook-secret-panel.tsx';
import { eventTypesLabel, formatDateTime } from '../format.ts';
import { Link, navigate, PATHS } from '../router.tsx';
import type { EndpointEventType, RotatedSecret, WebhookDelivery } from '../types.ts';
import { useLoad } from '../use-load.tsx';
import { usePages } from '../use-pages.tsx';

/** One webhook endpoint: its settings, the actions on it, and its deliveries. */
export function WebhookEndpointPage({ endpointId }: { endpointId: string }) {
  const load = useCallback(() => getWebhookEndpoint(endpointId), [endpointId]);
  const endpoint = useLoad(load);
  const [editing, setEditing] = useState(false);
  const [rotated, setRotated] = useState<RotatedSecret | null>(null);
  const [confirmRotate, setConfirmRotate] = useState<object | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<object | null>(null);
  const [statusError, setStatusError] = useState<ApiError | null>(null);
  const [statusBusy, setStatusBusy] = useState(false);
  const detailsHeadingId = useId();

  if (endpoint.data === undefined) {
    return (
      <>
        <PageHeading title="Webhook endpoint" />
        <p>
          <Link href={PATHS.webhooks}>All webhook endpoints</Link>
        </p>
        {endpoint.error !== undefined ? (
          endpoint.error.status === 404 ? (
            <p class="empty">This endpoint does not exist, or it was deleted.</p>
          ) : (
            <LoadError what="the webhook endpoint" error={endpoint.error} onRetry={endpoint.reload} />
          )
        ) : (
          <Loading>Loading the webhook endpoint…</Loading>
        )}
      </>
    );
  }
  const current = endpoint.data;

  async function save(values: EndpointValues) {
    const updated = await updateWebhookEndpoint(endpointId, values);
    endpoint.update(() => updated);
    setEditing(false);
  }

  async function setStatus(status: 'enabled' | 'disabled') {
    if (statusBusy) return;
    setStatusBusy(true);
    setStatusError(null);
    try {
      const updated = await updateWebhookEndpoint(endpointId, { status });
      endpoint.update(() => updated);
    } catch (caught) {
      setStatusError(toApiError(caught));
    } finally {
      setStatusBusy(false);
    }
  }

  return (
    <>
      <PageHeading title="Webhook endpoint" />
      <p>
        <Link href={PATHS.webhooks}>All webhook endpoints</Link>
      </p>
      {rotated !== null && (
        <WebhookSecretPanel title="Signing secret rotated" secret={rotated.secret} onDone={() => setRotated(null)}>
          <p>
            Until <strong>{formatDateTime(rotated.previousSecretExpiresAt)}</strong> deliveries are signed with both this secret and the
            previous one, so the receiver can switch to the new secret without rejecting a delivery.
          </p>
        </WebhookSecretPanel>
      )}
      <section class="card" aria-labelledby={detailsHeadingId}>
        <h2 id={detailsHeadingId}>Settings</h2>
        {editing ? (
          <WebhookEndpointForm
            initial={{ url: current.url, description: current.description, eventTypes: current.eventTypes as EndpointEventType[] }}
            submitLabel="Save changes"
            onSubmit={save}
            onCancel={() => setEditing(false)}
          />
        ) : (
          <>
            <dl class="details">
              <div>
                <dt>URL</dt>
                <dd>
                  <code data-testid="endpoint-url">{current.url}</code>
                </dd>
              </div>
              <div>
                <dt>Description</dt>
                <dd>{current.description === '' ? '—' : current.description}</dd>
              </div>
              <div>
                <dt>Events</dt>
                <dd>{eventTypesLabel(current.eventTypes)}</dd>
              </div>
              <div>
                <dt>Status</dt>
                <dd data-testid="endpoint-status">
                  <EndpointStatusBadge status={current.status} />
                  {current.disabledReason !== null && <span class="disabled-reason">{current.disabledReason}</span>}
                </dd>
              </div>
              <div>
                <dt>Registered</dt>
                <dd>
                  <DateTime ms={current.createdAt} />
                </dd>
              </div>
              <div>
                <dt>Changed</dt>
                <dd>
                  <DateTime ms={current.updatedAt} />
                </dd>
              </div>
            </dl>
            <div class="panel-actions">
              <button type="button" class="button-secondary" onClick={() => setEditing(true)}>
                Edit
              </button>
              {current.status === 'enabled' ? (
                <button type="button" class="button-secondary" onClick={() => setStatus('disabled')} aria-busy={statusBusy}>
                  Disable
                </button>
              ) : (
                <button type="button" class="button-primary" onClick={() => setStatus('enabled')} aria-busy={statusBusy}>
                  Enable
                </button>
              )}
              <button type="button" class="button-secondary" onClick={() => setConfirmRotate({})}>
                Rotate secret
              </button>
              <button type="button" class="button-danger" onClick={() => setConfirmDelete({})}>
                Delete
              </button>
            </div>
            <FormError error={statusError} />
          </>
        )}
      </section>
      <DeliveriesSection endpointId={endpointId} />
      <ConfirmDialog
        open={confirmRotate}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onClose={() => setConfirmRotate(null)}
        onConfirm={async () => {
          const result = await rotateWebhookSecret(endpointId);
          setConfirmRotate(null);
          setRotated(result);
        }}
        description="A new secret is made and shown once. The current secret keeps signing beside it for an overlap period, then stops; update the receiver before then."
      />
      <ConfirmDialog
        open={confirmDelete}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        danger
        onClose={() => setConfirmDelete(null)}
        onConfirm={async () => {
          await deleteWebhookEndpoint(endpointId);
          setConfirmDelete(null);
          navigate(PATHS.webhooks);
        }}
        description={
          <>
            Deleting <code>{current.url}</code> cannot be undone. Deliveries still waiting to be sent to it are dropped.
          </>
        }
      />
    </>
  );
}

/** The endpoint's deliveries, with Send test event and, per delivery, Redeliver. */
function DeliveriesSection({ endpointId }: { endpointId: string }) {
  const loadPage = useCallback((cursor: string | null) => listWebhookDeliveries(endpointId, cursor), [endpointId]);
  const state = usePages(loadPage);
  const { load } = state;
  const [notice, setNotice] = useState('');
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const [testing, setTesting] = useState(false);
  const [redelivering, setRedelivering] = useState<string | null>(null);
  const caption = useRef<HTMLTableCaptionElement>(null);
  const headingId = useId();

  async function sendTest() {
    if (testing) return;
    setTesting(true);
    setNotice('');
    setActionError(null);
    try {
      await sendWebhookTestEvent(endpointId);
      setNotice('A test event is on its way. Its delivery appears below.');
      await load(null);
    } catch (caught) {
      setActionError(toApiError(caught));
    } finally {
      setTesting(false);
    }
  }

  async function redeliver(delivery: WebhookDelivery) {
    if (redelivering !== null) return;
    setRedelivering(delivery.deliveryId);
    setNotice('');
    setActionError(null);
    try {
      await redeliverWebhookDelivery(delivery.deliveryId);
      setNotice(`Event ${delivery.eventId} will be delivered again, as a new delivery.`);
      await load(null);
    } catch (caught) {
      setActionError(toApiError(caught));
    } finally {
      setRedelivering(null);
    }
  }

  const deliveries = state.items;
  return (
    <section class="section" aria-labelledby={headingId}>
      <h2 id={headingId}>Deliveries</h2>
      <div class="panel-actions">
        <button type="button" class="button-primary" onClick={sendTest} aria-busy={testing}>
          Send test event
        </button>
        <button type="button" class="button-secondary" onClick={() => load(null)} aria-busy={state.loading}>
          Refresh
        </button>
        <span class="copy-status" role="status" aria-live="polite">
          {notice}
        </span>
      </div>
      <FormError error={actionError} />
      {deliveries === undefined ? (
        state.error !== undefined ? (
          <LoadError what="deliveries" error={state.error} onRetry={() => load(null)} />
        ) : (
          <Loading>Loading deliveries…</Loading>
        )
      ) : deliveries.length === 0 ? (
        <p class="empty">No deliveries yet. Events of the chosen types appear here once sent; try Send test event.</p>
      ) : (
        <>
          <WebhookDeliveriesTable
            deliveries={deliveries}
            busy={state.loading}
            captionRef={caption}
            redelivering={redelivering}
            onRedeliver={redeliver}
          />
          {state.error !== undefined && <LoadError what="more deliveries" error={state.error} onRetry={() => load(state.nextCursor)} />}
          {state.nextCursor !== null && (
            <p class="load-more">
              <button type="button" class="button-secondary" onClick={() => load(state.nextCursor)} aria-busy={state.loading}>
                Load more
              </button>
            </p>
          )}
        </>
      )}
    </section>
  );
}
