/**
 * Writes the chart's ClusterRoles from the rules declared next to the code:
 *   npx tsx hack/src/generate-rbac.ts          write charts/aiplane/templates/clusterrole-*.yaml
 *   npx tsx hack/src/generate-rbac.ts --check  write nothing; exit 1 when a committed file differs
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { staleFiles } from '@aiplane/crds';
import { repoRoot } from './paths.js';
import { rbacTemplates } from './rbac-manifests.js';

const check = process.argv.includes('--check');
const templates = rbacTemplates();
const stale = new Set((await staleFiles(repoRoot, templates)).map((s) => s.path));
for (const t of templates.filter((x) => stale.has(x.path))) {
  if (check) {
    console.error(`${t.path} differs from the declared rules; run make crds`);
  } else {
    await writeFile(join(repoRoot, t.path), t.content);
    console.log(`wrote ${t.path}`);
  }
}
process.exit(check && stale.size > 0 ? 1 : 0);
