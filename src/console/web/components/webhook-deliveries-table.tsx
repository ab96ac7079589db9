import type { Ref } from 'preact';
import { formatCount } from '../format.ts';
import type { WebhookDelivery } from '../types.ts';
import { DateTime } from './date-time.tsx';
import { DeliveryStatusBadge } from './webhook-badges.tsx';
import { ScrollTable } from './scroll-table.tsx';

/** An endpoint's deliveries, newest first, each with the outcome of its latest attempt and a Redeliver button. */
export function WebhookDeliveriesTable({
  deliveries,
  busy,
  captionRef,
  redelivering,
  onRedeliver,
}: {
  deliveries: WebhookDelivery[];
  busy: boolean;
  captionRef: Ref<HTMLTableCaptionElement>;
  /** the delivery whose redelivery is being asked for */
  redelivering: string | null;
  onRedeliver: (delivery: WebhookDelivery) => void;
}) {
  return (
    <ScrollTable
      class="deliveries-table"
      caption="Deliveries to this endpoint, newest first"
      captionRef={captionRef}
      busy={busy}
      columns={['Time', 'Event', 'Status', 'HTTP code', 'Latency', 'Attempts']}
      actions
    >
      {deliveries.map((delivery) => (
        <tr key={delivery.deliveryId} data-delivery-id={delivery.deliveryId}>
          <th scope="row" class="cell-name">
            <DateTime ms={delivery.lastAttemptAt ?? delivery.createdAt} />
          </th>
          <td data-label="Event">
            <code>{delivery.eventType}</code>
            <span class="event-id">{delivery.eventId}</span>
          </td>
          <td data-label="Status">
            <DeliveryStatusBadge status={delivery.status} />
            {delivery.lastError !== null && <span class="disabled-reason">{delivery.lastError}</span>}
          </td>
          <td data-label="HTTP code">{delivery.lastStatusCode ?? '—'}</td>
          <td data-label="Latency">{delivery.lastLatencyMs === null ? '—' : `${formatCount(delivery.lastLatencyMs)} ms`}</td>
          <td data-label="Attempts">{formatCount(delivery.attempts)}</td>
          <td class="actions-cell">
            <button
              type="button"
              class="button-secondary button-small"
              aria-label={`Redeliver ${delivery.eventType} event ${delivery.eventId}`}
              aria-busy={redelivering === delivery.deliveryId}
              onClick={() => onRedeliver(delivery)}
            >
              Redeliver
            </button>
          </td>
        </tr>
      ))}
    </ScrollTable>
  );
}
