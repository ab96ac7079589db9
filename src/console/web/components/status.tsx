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

/** Errors from a form submission, field messages included. */
export function FormError({ error, id }: { error: ApiError | null; id?: string }) {
  if (error === null || error.status === 401) return null;
  return (
    <div role="alert" class="form-error" id={id}>
      <p>{error.message}</p>
      {error.details.length > 0 && (
        <ul>
          {error.details.map((detail, index) => (
            <li key={index}>
              {fieldName(detail.field)}
              {detail.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

// Details name fields as paths ("/name", "body.name"); show only the last part.
function fieldName(field: string): string {
  const last = field.split(/[./]/).pop() ?? '';
  return last === '' ? '' : `${humanize(last)}: `;
}
