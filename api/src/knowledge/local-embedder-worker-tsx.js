// The embedding worker's entry when the API runs from its TypeScript sources: Node 20 does not
// carry the parent's `--import tsx` hooks into worker threads, so the worker registers tsx
// itself, then loads the worker (local-embedder.ts picks this file only for `.ts` sources).
import { register } from 'tsx/esm/api';

register();
await import('./local-embedder-worker.ts');
