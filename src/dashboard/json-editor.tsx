import { useState } from 'preact/hooks';
import { ApiFailure } from './api.js';
import { useSubmit } from './use-submit.js';

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiFailure(0, 'not valid JSON', undefined, (error as Error).message);
  }
}

/**
 * A value edited as the API's JSON (a rule, a record's geo routes): saving parses it and hands it to
 * `onSave`; a parse error, or the API's refusal naming its field (`match.paths.0.value`), is shown under it.
 * `onText` hears every edit (a form shown beside it as another view of the same value).
 */
export function JsonEditor({ label, initial, submitLabel, onSave, onText }: { label: string; initial: unknown; submitLabel: string; onSave: (value: unknown) => Promise<void>; onText?: (text: string) => void }) {
  const [text, setText] = useState(JSON.stringify(initial, null, 2));
  const errorId = `${label.replace(/\W+/g, '-')}-error`;
  const { failure, submit, changed } = useSubmit(async () => onSave(parsedJson(text)));
  return (
    <form onSubmit={submit} aria-label={label.replace(/ as JSON$/, '')}>
      <label class="wide">
        {label}
        <textarea name="json" spellcheck={false} value={text} onInput={(event) => (setText(event.currentTarget.value), changed(), onText?.(event.currentTarget.value))} aria-describedby={errorId} />
      </label>
      <p id={errorId} class="field-error json-error" role={failure ? 'alert' : undefined}>
        {failure ? `${failure.field ? `${failure.field}: ` : ''}${failure.detail ?? failure.error}` : ''}
      </p>
      <button type="submit">{submitLabel}</button>
    </form>
  );
}
