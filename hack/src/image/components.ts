/**
 * What the container image runs: one process per component, chosen by the image's single
 * argument (`aiplane <api|gateway|operator>`). The bundler makes one entry file per component
 * from `main` (docs/adr/0013-container-image.md).
 */
export const COMPONENTS = {
  api: { main: 'api/src/main.ts' },
  gateway: { main: 'gateway/src/main.ts' },
  operator: { main: 'operator/src/main.ts' },
} as const;

export type Component = keyof typeof COMPONENTS;

export const USAGE = `usage: aiplane <${Object.keys(COMPONENTS).join('|')}>`;

function isComponent(name: string): name is Component {
  return Object.hasOwn(COMPONENTS, name);
}

/**
 * The component named by the command-line arguments (without node and the script), or
 * undefined when they name none: no argument, an unknown one, `--help`, or more than one.
 */
export function componentFor(args: readonly string[]): Component | undefined {
  const [name, ...rest] = args;
  if (name === undefined || rest.length > 0 || !isComponent(name)) return undefined;
  return name;
}
