import { useLayoutEffect, useRef, useState } from 'preact/hooks';

/**
 * A list of short texts (nameserver hostnames, anycast addresses) as one input per item, each with
 * a Remove button, and an Add button. The legend names the list, each input is named by the list
 * and its place ("hostnames 2"), and the refusal (`errorId`) describes the list and each input.
 * The keyboard focus follows the change: to a new item's input, or after a removal to the item now
 * in its place (the Add button when the list is empty).
 */
export function ListField({ label, items, errorId, onChange }: { label: string; items: string[]; errorId: string; onChange: (items: string[]) => void }) {
  const box = useRef<HTMLFieldSetElement>(null);
  const [focusAt, setFocusAt] = useState<number>();
  useLayoutEffect(() => {
    if (focusAt === undefined) return;
    const inputs = box.current?.querySelectorAll<HTMLInputElement>('input') ?? [];
    (inputs[Math.min(focusAt, inputs.length - 1)] ?? box.current?.querySelector<HTMLButtonElement>('.list-add'))?.focus();
    setFocusAt(undefined);
  }, [focusAt]);
  const replace = (index: number, value: string) => onChange(items.map((item, at) => (at === index ? value : item)));
  const remove = (index: number) => (onChange(items.filter((_, at) => at !== index)), setFocusAt(index));
  const add = () => (onChange([...items, '']), setFocusAt(items.length));
  return (
    <fieldset class="list-field" ref={box} aria-describedby={errorId}>
      <legend>{label}</legend>
      {items.length === 0 ? <p class="muted">None.</p> : null}
      <ul>
        {items.map((item, index) => (
          <li key={index}>
            <input type="text" value={item} aria-label={`${label} ${index + 1}`} aria-describedby={errorId} onInput={(event) => replace(index, event.currentTarget.value)} />
            <button type="button" class="small secondary" aria-label={`Remove ${label} ${index + 1}`} onClick={() => remove(index)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <button type="button" class="small secondary list-add" aria-label={`Add to ${label}`} onClick={add}>
        Add
      </button>
    </fieldset>
  );
}
