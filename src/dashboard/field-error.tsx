import type { ComponentChildren } from 'preact';
import type { ApiFailure } from './api.js';

/** The API's refusal next to the input whose `field` it names (the input points here with aria-describedby). */
export function FieldError({ id, failure, field }: { id: string; failure?: ApiFailure; field: string }) {
  const shown = failure !== undefined && failure.field === field;
  return (
    <span id={id} class="field-error" role={shown ? 'alert' : undefined}>
      {shown ? (failure.detail ?? failure.error) : ''}
    </span>
  );
}

/**
 * A labelled input with its refusal beside the label, not inside it: the refusal describes the input
 * (the input's aria-describedby names `errorId`) without becoming part of its accessible name.
 * `check` puts a checkbox before its words.
 */
export function Field({ errorId, failure, field, check = false, children }: { errorId: string; failure?: ApiFailure; field: string; check?: boolean; children: ComponentChildren }) {
  return (
    <div class="field">
      <label class={check ? 'check' : undefined}>{children}</label>
      <FieldError id={errorId} failure={failure} field={field} />
    </div>
  );
}

/** A refusal that names none of the form's inputs, under the form: every error reaches the user in words. */
export function FormFailure({ failure, fields }: { failure?: ApiFailure; fields: string[] }) {
  if (!failure || (failure.field !== undefined && fields.includes(failure.field))) return null;
  return (
    <p class="failure" role="alert">
      {failure.status ? `${failure.error} (${failure.status})` : failure.error}
      {failure.field ? ` in ${failure.field}` : ''}
      {failure.detail ? `: ${failure.detail}` : ''}
    </p>
  );
}
