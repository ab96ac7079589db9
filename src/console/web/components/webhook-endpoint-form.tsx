import type { TargetedSubmitEvent } from 'preact';
import { useId, useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api.ts';
import type { EndpointEventType } from '../types.ts';
import { EventTypesField } from './event-types-field.tsx';
import { FieldMessage, FormError, fieldMessage } from './status.tsx';

/** The API's limits (ENDPOINT_URL_MAX_LENGTH, ENDPOINT_DESCRIPTION_MAX_LENGTH). */
const URL_MAX_LENGTH = 2048;
const DESCRIPTION_MAX_LENGTH = 500;

export interface EndpointValues {
  url: string;
  description: string;
  eventTypes: EndpointEventType[];
}

/**
 * An endpoint's URL, description and event types: registering one (empty) or changing one
 * (filled in). `onSubmit` calls the API; its errors are shown at the fields they name.
 */
export function WebhookEndpointForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: EndpointValues;
  submitLabel: string;
  onSubmit: (values: EndpointValues) => Promise<void>;
  onCancel?: () => void;
}) {
  const [values, setValues] = useState<EndpointValues>(initial);
  const [error, setError] = useState<ApiError | null>(null);
  const [problems, setProblems] = useState<Partial<Record<keyof EndpointValues, string>>>({});
  const [busy, setBusy] = useState(false);
  const urlId = useId();
  const urlHintId = useId();
  const urlErrorId = useId();
  const descriptionId = useId();
  const descriptionErrorId = useId();
  const errorId = useId();
  const urlError = problems.url ?? fieldMessage(error, 'url');
  const descriptionError = fieldMessage(error, 'description');
  const typesError = problems.eventTypes ?? fieldMessage(error, 'eventTypes');

  async function submit(event: TargetedSubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setError(null);
    // checked here first (the same rules as the API's), so an empty field needs no round trip
    const found: typeof problems = {};
    if (values.url.trim() === '') found.url = 'URL must not be blank';
    if (values.eventTypes.length === 0) found.eventTypes = 'Choose at least one event type, or all events';
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await onSubmit({ ...values, url: values.url.trim(), description: values.description.trim() });
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="webhook-form" onSubmit={submit} aria-describedby={error !== null ? errorId : undefined}>
      <div class="field">
        <label for={urlId}>Endpoint URL</label>
        <input
          id={urlId}
          type="url"
          name="url"
          autocomplete="off"
          inputMode="url"
          value={values.url}
          required
          maxLength={URL_MAX_LENGTH}
          placeholder="https://example.com/webhooks/compliance"
          onInput={(event) => {
            setValues({ ...values, url: event.currentTarget.value });
            setProblems({ ...problems, url: undefined });
          }}
          aria-describedby={urlError !== null ? `${urlErrorId} ${urlHintId}` : urlHintId}
          aria-invalid={urlError !== null ? true : undefined}
        />
        <FieldMessage id={urlErrorId} message={urlError} />
        <p class="hint" id={urlHintId}>
          Events are sent to it with an HTTP POST. It must be reachable on a public address: loopback, private and cloud metadata addresses
          are refused unless the service allows them for local development.
        </p>
      </div>
      <div class="field">
        <label for={descriptionId}>Description (optional)</label>
        <input
          id={descriptionId}
          type="text"
          name="description"
          autocomplete="off"
          value={values.description}
          maxLength={DESCRIPTION_MAX_LENGTH}
          onInput={(event) => setValues({ ...values, description: event.currentTarget.value })}
          aria-describedby={descriptionError !== null ? descriptionErrorId : undefined}
          aria-invalid={descriptionError !== null ? true : undefined}
        />
        <FieldMessage id={descriptionErrorId} message={descriptionError} />
      </div>
      <EventTypesField
        value={values.eventTypes}
        onChange={(eventTypes) => {
          setValues({ ...values, eventTypes });
          setProblems({ ...problems, eventTypes: undefined });
        }}
        error={typesError}
      />
      <div class="form-actions">
        <button type="submit" class="button-primary" aria-busy={busy}>
          {submitLabel}
        </button>
        {onCancel !== undefined && (
          <button type="button" class="button-secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      <FormError error={error} id={errorId} shownAtFields={['url', 'description', 'eventTypes']} />
    </form>
  );
}
