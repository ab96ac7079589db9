import type { Ref } from 'preact';
import { useId } from 'preact/hooks';
import { eventTypesLabel } from '../format.ts';
import { Link, webhookEndpointPath } from '../router.tsx';
import type { WebhookEndpoint } from '../types.ts';
import { DateTime } from './date-time.tsx';
import { EndpointStatusBadge } from './webhook-badges.tsx';

export function WebhookEndpointsTable({
  endpoints,
  busy,
  captionRef,
}: {
  endpoints: WebhookEndpoint[];
  busy: boolean;
  captionRef: Ref<HTMLTableCaptionElement>;
}) {
  const captionId = useId();
  return (
    // Focusable so keyboard users can scroll the table sideways on narrow screens.
    <div class="table-scroll" role="group" aria-labelledby={captionId} tabIndex={0}>
      <table class="webhooks-table" aria-busy={busy}>
        <caption id={captionId} ref={captionRef} tabIndex={-1}>
          Webhook endpoints of your organization, oldest first
        </caption>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Description</th>
            <th scope="col">Events</th>
            <th scope="col">Status</th>
            <th scope="col">Registered</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((endpoint) => (
            <tr key={endpoint.endpointId} class={endpoint.status === 'disabled' ? 'row-revoked' : undefined}>
              <th scope="row" class="cell-name cell-url">
                <Link href={webhookEndpointPath(endpoint.endpointId)}>{endpoint.url}</Link>
              </th>
              <td data-label="Description">{endpoint.description}</td>
              <td data-label="Events">{eventTypesLabel(endpoint.eventTypes)}</td>
              <td data-label="Status">
                <EndpointStatusBadge status={endpoint.status} />
                {endpoint.disabledReason !== null && <span class="disabled-reason">{endpoint.disabledReason}</span>}
              </td>
              <td data-label="Registered">
                <DateTime ms={endpoint.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
