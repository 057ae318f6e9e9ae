// The container image's entry point: `node /app/aiplane.mjs <api|gateway|operator>`.
// Bundled by hack/src/image/bundle.ts beside one entry file per component (`api.mjs`, …);
// only the chosen one is imported, so only its top-level code runs. From source, run a
// component's main module directly (`node --import tsx api/src/main.ts`).
import { componentFor, USAGE } from './components.js';

const component = componentFor(process.argv.slice(2));
if (component === undefined) {
  process.stderr.write(`${USAGE}\n`);
  process.exitCode = 2;
} else {
  await import(new URL(`./${component}.mjs`, import.meta.url).href);
}
