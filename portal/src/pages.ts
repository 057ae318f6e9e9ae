import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { Need } from './session';
import type { StringKey } from './strings';

export type Workspace = 'own' | 'admin';

export interface PageDef {
  /** The route, below the portal's base. */
  path: string;
  /** Its entry in the navigation; pages without one are reached from another page. */
  nav?: StringKey;
  workspace: Workspace;
  /** The caller's role or permission this page needs; without it the page is hidden and its route says "no access". */
  need: Need;
  /** The page shows one organization's data: it waits for an organization to be chosen. */
  organization?: boolean;
  component: LazyExoticComponent<ComponentType<{ params: Record<string, string> }>>;
}

// Each page is its own chunk, loaded on navigation.
export const PAGES: PageDef[] = [
  {
    path: '/',
    nav: 'nav.home',
    workspace: 'own',
    need: 'can_access_api',
    component: lazy(() => import('./pages/home')),
  },
  {
    path: '/api-keys',
    nav: 'nav.apiKeys',
    workspace: 'own',
    need: 'can_access_api',
    component: lazy(() => import('./pages/api-keys')),
  },
  {
    path: '/mcp',
    nav: 'nav.mcp',
    workspace: 'own',
    need: 'can_access_api',
    organization: true,
    component: lazy(() => import('./pages/mcp-servers')),
  },
  {
    path: '/admin/tenants',
    nav: 'nav.tenants',
    workspace: 'admin',
    need: 'platform_admin',
    component: lazy(() => import('./pages/tenants')),
  },
  {
    path: '/admin/tenants/:id',
    workspace: 'admin',
    need: 'platform_admin',
    component: lazy(() => import('./pages/tenant-detail')),
  },
  {
    path: '/admin/mcp',
    nav: 'nav.mcpRegistry',
    workspace: 'admin',
    need: 'platform_admin',
    organization: true,
    component: lazy(() => import('./pages/mcp-servers')),
  },
  {
    path: '/admin/mcp/new',
    workspace: 'admin',
    need: 'platform_admin',
    organization: true,
    component: lazy(() => import('./pages/mcp-server-form')),
  },
  // Files, the RAG picker and agents (docs/adr/0039).
  {
    path: '/files',
    nav: 'nav.files',
    workspace: 'own',
    need: 'can_access_api',
    organization: true,
    component: lazy(() => import('./pages/files')),
  },
  {
    path: '/files/search',
    workspace: 'own',
    need: 'can_access_api',
    organization: true,
    component: lazy(() => import('./pages/files-search')),
  },
  {
    path: '/files/:folder',
    workspace: 'own',
    need: 'can_access_api',
    organization: true,
    component: lazy(() => import('./pages/files')),
  },
  {
    path: '/agents',
    nav: 'nav.agents',
    workspace: 'own',
    need: 'can_access_api',
    organization: true,
    component: lazy(() => import('./pages/agents')),
  },
  {
    path: '/agents/:id',
    workspace: 'own',
    need: 'can_access_api',
    organization: true,
    component: lazy(() => import('./pages/agent-form')),
  },
  // Issue 20, part B: MCP edit and credentials, the OAuth return page, settings.
  {
    path: '/admin/mcp/:id/edit',
    workspace: 'admin',
    need: 'platform_admin',
    organization: true,
    component: lazy(() => import('./pages/mcp-server-form')),
  },
  {
    path: '/mcp/oauth/return',
    workspace: 'own',
    need: 'can_access_api',
    organization: true,
    component: lazy(() => import('./pages/mcp-oauth-return')),
  },
  {
    path: '/mcp/:id/credential',
    workspace: 'own',
    need: 'can_access_api',
    organization: true,
    component: lazy(() => import('./pages/mcp-credential')),
  },
  {
    path: '/settings/configuration',
    nav: 'nav.configuration',
    workspace: 'own',
    need: 'can_edit_config',
    organization: true,
    component: lazy(() => import('./pages/settings-configuration')),
  },
  {
    path: '/settings/branding',
    nav: 'nav.branding',
    workspace: 'own',
    need: 'can_edit_config',
    organization: true,
    component: lazy(() => import('./pages/settings-branding')),
  },
  {
    path: '/settings/translations',
    nav: 'nav.translations',
    workspace: 'own',
    need: 'can_edit_config',
    organization: true,
    component: lazy(() => import('./pages/settings-translations')),
  },
  {
    path: '/settings/models',
    nav: 'nav.models',
    workspace: 'own',
    need: 'can_manage_models',
    organization: true,
    component: lazy(() => import('./pages/settings-models')),
  },
  {
    path: '/settings/downloads',
    nav: 'nav.downloads',
    workspace: 'own',
    need: 'can_manage_models',
    organization: true,
    component: lazy(() => import('./pages/settings-downloads')),
  },
  {
    path: '/settings/reindex',
    nav: 'nav.reindex',
    workspace: 'own',
    need: 'can_access_api',
    organization: true,
    component: lazy(() => import('./pages/settings-reindex')),
  },
];

export const workspaceOf = (path: string): Workspace =>
  path === '/admin' || path.startsWith('/admin/') ? 'admin' : 'own';
