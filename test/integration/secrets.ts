/** Every secret the run has seen (tokens, keys, passwords); none may appear in any log. */
const secrets = new Set<string>();

export function rememberSecret(value: string | undefined): void {
  if (value && value.length >= 8) secrets.add(value);
}

export function rememberedSecrets(): string[] {
  return [...secrets];
}
