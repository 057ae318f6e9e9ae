/** Whether a server's tool allowlist lets `tool` through (an empty or absent list: every tool). */
export function isAllowed(allowlist: readonly string[] | undefined, tool: string): boolean {
  return !allowlist || allowlist.length === 0 || allowlist.includes(tool);
}
