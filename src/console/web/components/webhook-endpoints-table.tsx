import type { Ref } from 'preact';
import { eventTypesLabel } from '../format.ts';
import { Link, webhookEndpointPath } from '../router.tsx';
import type { WebhookEndpoint } from '../types.ts';
import { DateTime } from './date-time.tsx';
import { EndpointStatusBadge } from './webhook-badges.tsx';
import { ScrollTable } from './scroll-table.tsx';

export function WebhookEndpointsTable({
  endpoints,
  busy,
  captionRef,
}: {
  endpoints: WebhookEndpoint[];
  busy: boolean;
  captionRef: Ref<HTMLTableCaptionElement>;
}) {
  return (
    <ScrollTable
      class="webhooks-table"
      caption="Webhook endpoints of your organization, oldest first"
      captionRef={captionRef}
      busy={busy}
      columns={['URL', 'Description', 'Events', 'Status', 'Registered']}
    >
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
    </ScrollTable>
  );
}
