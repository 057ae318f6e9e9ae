/** A labelled progress bar with its figures in words (an unknown total: indeterminate). */
export function ProgressBar({
  label,
  done,
  total,
  text,
}: {
  label: string;
  done: number;
  total: number | null;
  text: string;
}) {
  return (
    <div className="progress">
      {total !== null && total > 0 ? (
        <progress aria-label={label} value={done} max={total} />
      ) : (
        <progress aria-label={label} />
      )}
      <span>{text}</span>
    </div>
  );
}
