import { useId, useRef, useState } from 'preact/hooks';
import { createWebhookEndpoint, listWebhookEndpoints } from '../api.ts';
import { PageHeading } from '../components/page-heading.tsx';
import { LoadError, Loading } from '../components/status.tsx';
import { type EndpointValues, WebhookEndpointForm } from '../components/webhook-endpoint-form.tsx';
import { WebhookEndpointsTable } from '../components/webhook-endpoints-table.tsx';
import { WebhookSecretPanel } from '../components/webhook-secret-panel.tsx';
import { Link, webhookEndpointPath } from '../router.tsx';
import type { NewWebhookEndpoint } from '../types.ts';
import { useLoad } from '../use-load.tsx';

const EMPTY: EndpointValues = { url: '', description: '', eventTypes: ['*'] };

export function WebhooksPage() {
  const list = useLoad(listWebhookEndpoints);
  const [created, setCreated] = useState<NewWebhookEndpoint | null>(null);
  // a new form after each registration, so it starts empty again
  const [formKey, setFormKey] = useState(0);
  const caption = useRef<HTMLTableCaptionElement>(null);
  const formHeadingId = useId();

  async function register(values: EndpointValues) {
    const endpoint = await createWebhookEndpoint(values);
    setCreated(endpoint);
    setFormKey((key) => key + 1);
    // The list copy must not hold the secret: only the panel may, and only until "Done".
    const { secret: _secret, ...listed } = endpoint;
    list.update((endpoints) => [...endpoints.filter((item) => item.endpointId !== listed.endpointId), listed]);
    void list.reload();
  }

  return (
    <>
      <PageHeading title="Webhooks" />
      <p class="lead">
        Webhooks push your organization's change events to your systems as they happen: each event is POSTed to the endpoints subscribed to
        its type, signed per the Standard Webhooks specification, and retried for up to three days until the endpoint answers with a 2xx.
      </p>
      <section class="card" aria-labelledby={formHeadingId}>
        <h2 id={formHeadingId}>Register an endpoint</h2>
        <WebhookEndpointForm key={formKey} initial={EMPTY} submitLabel="Register endpoint" onSubmit={register} />
      </section>
      {created !== null && (
        <WebhookSecretPanel
          title="Endpoint registered"
          secret={created.secret}
          onDone={() => {
            setCreated(null);
            (caption.current ?? document.querySelector<HTMLElement>('main h1'))?.focus();
          }}
        >
          <p>
            Deliveries to <Link href={webhookEndpointPath(created.endpointId)}>{created.url}</Link> carry a <code>webhook-signature</code>{' '}
            header made with this secret; verify it with any Standard Webhooks library before trusting a request.
          </p>
        </WebhookSecretPanel>
      )}
      <section class="section" aria-labelledby="webhooks-list-heading">
        <h2 id="webhooks-list-heading">Your endpoints</h2>
        {list.error !== undefined && <LoadError what="webhook endpoints" error={list.error} onRetry={list.reload} />}
        {list.data === undefined ? (
          list.loading && <Loading>Loading webhook endpoints…</Loading>
        ) : list.data.length === 0 ? (
          <p class="empty">No endpoints yet. Register one above to receive change events.</p>
        ) : (
          <WebhookEndpointsTable endpoints={list.data} busy={list.loading} captionRef={caption} />
        )}
      </section>
    </>
  );
}
