// Delivery IDs sort in creation order (UUIDv7, console/sortable-id.ts), which is the order the
// console lists an endpoint's deliveries in, with the ID breaking ties within a millisecond.
import { sortableId } from '../console/sortable-id.ts';

export const DELIVERY_ID_PREFIX = 'dlv_';

export const newDeliveryId = (now: number) => `${DELIVERY_ID_PREFIX}${sortableId(now)}`;
