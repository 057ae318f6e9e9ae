import { randomBytes } from 'node:crypto';

/** Every secret the run has seen (tokens, keys, passwords); none may appear in any log. */
const secrets = new Set<string>();

export function rememberSecret(value: string | undefined): void {
  if (value && value.length >= 8) secrets.add(value);
}

export function rememberedSecrets(): string[] {
  return [...secrets];
}

/** A fresh random secret value, `<label>-<24 hex digits>`, remembered for the log sweep. */
export function newSecret(label: string): string {
  const value = `${label}-${randomBytes(12).toString('hex')}`;
  rememberSecret(value);
  return value;
}
