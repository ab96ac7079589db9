import { useId } from 'preact/hooks';
import type { EndpointEventType } from '../types.ts';
import { FieldMessage } from './status.tsx';

type CatalogType = Exclude<EndpointEventType, '*'>;

/** The event catalog in the order the documentation lists it, with what each one means. */
const EVENT_TYPES: [CatalogType, string][] = [
  ['vulnerability.created', 'a vulnerability finding was created'],
  ['vulnerability.updated', 'a finding changed (with each field before and after)'],
  ['evidence.attachments_added', 'files were attached to evidence'],
  ['evidence.status_changed', "an evidence item's status changed"],
  ['control.status_changed', "a write changed a control's compliance status"],
  ['framework.progress_changed', "a write changed a framework's progress"],
  ['credential.created', 'an API credential was created'],
  ['credential.revoked', 'an API credential was revoked'],
];
// Fails the type-check when the API's catalog (generated types) gains a type this list lacks.
const _complete: Exclude<CatalogType, (typeof EVENT_TYPES)[number][0]> extends never ? true : never = true;
void _complete;

/** Checkboxes for an endpoint's event types: "all events" ("*"), or some of the catalog. */
export function EventTypesField({
  value,
  onChange,
  error,
}: {
  value: EndpointEventType[];
  onChange: (next: EndpointEventType[]) => void;
  error: string | null;
}) {
  const hintId = useId();
  const errorId = useId();
  const all = value.includes('*');
  const toggle = (type: CatalogType, on: boolean) =>
    onChange(EVENT_TYPES.map(([t]) => t).filter((t) => (t === type ? on : value.includes(t))));
  return (
    <fieldset class="field event-types" aria-describedby={error !== null ? `${errorId} ${hintId}` : hintId}>
      <legend>Events to send</legend>
      <label class="checkbox">
        <input
          type="checkbox"
          name="eventTypes"
          value="*"
          checked={all}
          onChange={(event) => onChange(event.currentTarget.checked ? ['*'] : [])}
        />
        All events, including types added later
      </label>
      {EVENT_TYPES.map(([type, meaning]) => (
        <label class="checkbox" key={type}>
          <input
            type="checkbox"
            name="eventTypes"
            value={type}
            checked={all || value.includes(type)}
            disabled={all}
            onChange={(event) => toggle(type, event.currentTarget.checked)}
          />
          <span>
            <code>{type}</code>: {meaning}
          </span>
        </label>
      ))}
      <FieldMessage id={errorId} message={error} />
      <p class="hint" id={hintId}>
        Choose at least one.
      </p>
    </fieldset>
  );
}
