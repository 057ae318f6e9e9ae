/** What an edit does with a stored write-only value: keep it, set a new one, or remove it. */
export type WriteOnlyMode = 'keep' | 'replace' | 'remove';

export const WRITE_ONLY_MODES: readonly WriteOnlyMode[] = ['keep', 'replace', 'remove'];

/** The keep / replace / remove choice of a write-only value (its words given per mode). */
export function WriteOnlyChoice({
  name,
  label,
  mode,
  onChange,
  words,
}: {
  name: string;
  label: string;
  mode: WriteOnlyMode;
  onChange: (mode: WriteOnlyMode) => void;
  words: (mode: WriteOnlyMode) => string;
}) {
  return (
    <div role="radiogroup" aria-label={label} className="row">
      {WRITE_ONLY_MODES.map((m) => (
        <label key={m}>
          <input
            type="radio"
            name={name}
            value={m}
            checked={mode === m}
            onChange={() => onChange(m)}
          />{' '}
          {words(m)}
        </label>
      ))}
    </div>
  );
}
