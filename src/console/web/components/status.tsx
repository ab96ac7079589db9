import type { ApiError } from '../api.ts';
import { humanize } from '../format.ts';

export function Loading({ children }: { children: string }) {
  return (
    <p role="status" class="loading">
      {children}
    </p>
  );
}

/** A failed page load with a way to retry. A 401 renders nothing: the app is already on its way to sign-in. */
export function LoadError({ what, error, onRetry }: { what: string; error: ApiError; onRetry: () => void }) {
  if (error.status === 401) return null;
  return (
    <div class="error-box">
      <p role="alert">
        Could not load {what}. {error.message}
      </p>
      <button type="button" class="button-secondary" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}

/** The message the API gave for `field` (its last path part), as a sentence naming the field. */
export function fieldMessage(error: ApiError | null, field: string): string | null {
  const detail = error?.details.find((d) => lastPart(d.field) === field);
  return detail ? `${humanize(field)} ${detail.message}` : null;
}

/** One field's message, under its input (the input points to it with aria-describedby). */
export function FieldMessage({ id, message }: { id: string; message: string | null }) {
  if (message === null) return null;
  return (
    <p class="field-error" id={id}>
      {message}
    </p>
  );
}

/**
 * Errors from a form submission. Details about the fields in `shownAtFields` are shown under those
 * fields (FieldMessage), so they are left out here rather than said twice.
 */
export function FormError({ error, id, shownAtFields = [] }: { error: ApiError | null; id?: string; shownAtFields?: string[] }) {
  if (error === null || error.status === 401) return null;
  const rest = error.details.filter((detail) => !shownAtFields.includes(lastPart(detail.field)));
  const atFields = error.details.length - rest.length;
  return (
    <div role="alert" class="form-error" id={id}>
      <p>{atFields > 0 ? `${error.message} ${atFields === 1 ? 'See the field below.' : 'See the fields below.'}` : error.message}</p>
      {rest.length > 0 && (
        <ul>
          {rest.map((detail, index) => (
            <li key={index}>
              {lastPart(detail.field) === '' ? '' : `${humanize(lastPart(detail.field))} `}
              {detail.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

// Details name fields as paths ("name", "affectedResources[0].name"); the last part names the input.
function lastPart(field: string): string {
  return field.split(/[./]/).pop() ?? '';
}
