/** An action's words, with what it acts on for screen readers ("Edit" → "Edit docs"). */
export function Named({ label, name }: { label: string; name: string }) {
  return (
    <>
      {label}
      <span className="visually-hidden"> {name}</span>
    </>
  );
}
