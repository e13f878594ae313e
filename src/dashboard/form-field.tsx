import type { ComponentChildren } from 'preact';
import type { ApiFailure } from './api.js';
import { FieldError } from './field-error.js';

/** What an input carries to be tied to its error (and help line): `aria-describedby` names them, `aria-invalid` is set while the error shows. */
export function describedBy(id: string, invalid: boolean, help = true) {
  return { id, 'aria-describedby': help ? `${id}-help ${id}-error` : `${id}-error`, 'aria-invalid': invalid ? ('true' as const) : undefined };
}

// The help line of the input or group `id` (outside its label, so it does not become part of the input's name).
function Help({ id, help }: { id: string; help?: string }) {
  return (
    <span id={`${id}-help`} class="help">
      {help ?? ''}
    </span>
  );
}

/**
 * One input (`children`, carrying describedBy(id, …)) with its label, one line of help and the
 * error at `field`, either the API's refusal naming it or the form's own check.
 */
export function FormField({ id, label, help, failure, field, check = false, children }: { id: string; label: string; help?: string; failure?: ApiFailure; field: string; check?: boolean; children: ComponentChildren }) {
  return (
    <div class={check ? 'field check' : 'field'}>
      {check ? children : null}
      <label for={id}>{label}</label>
      {check ? null : children}
      <Help id={id} help={help} />
      <FieldError id={`${id}-error`} failure={failure} field={field} />
    </div>
  );
}

/** Inputs that make one value together (checkbox choices, rows of a list) under a legend and its help, with the error of the whole below. */
export function FieldGroup({ id, legend, help, failure, field, children }: { id: string; legend: string; help?: string; failure?: ApiFailure; field: string; children: ComponentChildren }) {
  return (
    <fieldset class="field-group" id={id} aria-describedby={`${id}-help ${id}-error`}>
      <legend>{legend}</legend>
      <Help id={id} help={help} />
      {children}
      <FieldError id={`${id}-error`} failure={failure} field={field} />
    </fieldset>
  );
}
