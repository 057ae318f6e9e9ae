/** A timestamp in the reader's locale, or the given word for none. */
export const when = (iso: string | null, none: string): string =>
  iso === null ? none : new Date(iso).toLocaleString();
