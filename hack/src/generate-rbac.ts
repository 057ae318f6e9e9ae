/**
 * Writes the chart's ClusterRoles from the rules declared next to the code:
 *   npx tsx hack/src/generate-rbac.ts          write charts/aiplane/templates/clusterrole-*.yaml
 *   npx tsx hack/src/generate-rbac.ts --check  write nothing; exit 1 when a committed file differs
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import { rbacTemplates } from './rbac-manifests.js';

const check = process.argv.includes('--check');
let stale = 0;
for (const t of rbacTemplates()) {
  const path = join(repoRoot, t.path);
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current === t.content) continue;
  if (check) {
    console.error(`${t.path} differs from the declared rules; run make crds`);
    stale++;
  } else {
    await writeFile(path, t.content);
    console.log(`wrote ${t.path}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
