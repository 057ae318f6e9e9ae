import { useQuery } from '@tanstack/react-query';
import { Suspense, useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Route, Switch, useLocation } from 'wouter';
import { api, apiBlobUrl, selectOrganization, selectedOrganization } from './api';
import { signIn, signOut } from './auth';
import { ErrorMessage } from './components/error-message';
import { LanguageSelector } from './components/language-selector';
import { applyOverrides } from './i18n';
import { PAGES, workspaceOf, type PageDef } from './pages';
import { REFRESH_MS, tenantBusy } from './pages/tenant-status';
import { allowed, MeProvider, useMe, useMeQuery } from './session';
import { applyTheme, type Theme } from './theme';
import type { Me, Tenant } from './types';
import { ApiError } from './api';

/** The signed-in portal: the caller, then the shell around the page of the address. */
export function App() {
  const { t } = useTranslation();
  const me = useMeQuery();
  if (me.isPending) return <p className="loading">{t('app.loading')}</p>;
  if (me.isError) {
    return (
      <main id="main" className="center">
        <h1>{t('error.title')}</h1>
        <ErrorMessage error={me.error} onRetry={() => void me.refetch()} />
        {me.error instanceof ApiError && me.error.status === 401 ? (
          <button type="button" onClick={() => void signIn()}>
            {t('signin.button')}
          </button>
        ) : (
          <button type="button" onClick={() => void signOut()}>
            {t('signout.button')}
          </button>
        )}
      </main>
    );
  }
  return (
    <MeProvider me={me.data}>
      <Branding />
      <Shell />
    </MeProvider>
  );
}

/** The organization's theme and translation overrides (the built-in ones until they arrive). */
function Branding() {
  // Both belong to an organization: a person in several reads them once one is chosen (the API
  // answers 400 organization_required before).
  const enabled = useMe().organization_id !== null;
  const theme = useQuery({
    queryKey: ['theme'],
    queryFn: () => api<Theme>('/v1/branding/theme'),
    enabled,
  });
  const overrides = useQuery({
    queryKey: ['translations'],
    queryFn: () => api<Record<string, Record<string, Record<string, string>>>>('/v1/translations'),
    enabled,
  });
  useEffect(() => {
    if (theme.data) applyTheme(theme.data);
  }, [theme.data]);
  useEffect(() => {
    if (overrides.data) applyOverrides(overrides.data);
  }, [overrides.data]);
  return null;
}

function Logo() {
  // A query, so that the branding editor's upload shows at once (it invalidates ['logo']).
  const logo = useQuery({
    queryKey: ['logo'],
    queryFn: () => apiBlobUrl('/v1/branding/logo'),
    enabled: useMe().organization_id !== null,
  });
  const url = logo.data ?? null;
  const theme = useQuery<Theme>({ queryKey: ['theme'], enabled: false });
  useEffect(() => {
    return () => {
      if (url) URL.revokeObjectURL(url);
    };
  }, [url]);
  const name = theme.data?.product_name ?? 'aiplane';
  return (
    <Link href="/" className="brand">
      {url ? <img src={url} alt={name} height={32} /> : <span>{name}</span>}
    </Link>
  );
}

function Shell() {
  const { t } = useTranslation();
  const me = useMe();
  const [location] = useLocation();
  const workspace = workspaceOf(location);
  const nav = PAGES.filter((p) => p.nav && p.workspace === workspace && allowed(me, p.need));
  return (
    <>
      <a className="skip" href="#main">
        {t('app.skip')}
      </a>
      <header className="topbar">
        <Logo />
        {me.platform_admin && (
          <nav aria-label={t('workspace.label')} className="workspaces">
            <Link href="/" aria-current={workspace === 'own' ? 'page' : undefined}>
              {t('workspace.own')}
            </Link>
            <Link href="/admin/tenants" aria-current={workspace === 'admin' ? 'page' : undefined}>
              {t('workspace.admin')}
            </Link>
          </nav>
        )}
        <TenantSelector me={me} />
        <LanguageSelector />
        <span className="user">{me.username ?? me.user_id}</span>
        <button type="button" onClick={() => void signOut()}>
          {t('signout.button')}
        </button>
      </header>
      <div className="layout">
        <nav aria-label={t('nav.label')} className="sidenav">
          <ul>
            {nav.map((p) => (
              <li key={p.path}>
                <Link href={p.path} aria-current={location === p.path ? 'page' : undefined}>
                  {t(p.nav ?? 'nav.home')}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <Suspense fallback={<p className="loading">{t('app.loading')}</p>}>
            <Switch>
              {PAGES.map((p) => (
                <Route key={p.path} path={p.path}>
                  {(params: Record<string, string>) => <Guard page={p} params={params} />}
                </Route>
              ))}
              <Route>
                <h1>{t('notFound.title')}</h1>
              </Route>
            </Switch>
          </Suspense>
        </main>
      </div>
    </>
  );
}

/** A page the caller may see, or the "no access" view; an organization first when it needs one. */
function Guard({ page, params }: { page: PageDef; params: Record<string, string> }) {
  const { t } = useTranslation();
  const me = useMe();
  if (!allowed(me, page.need)) {
    const need = page.need === 'platform_admin' ? t('home.platformAdmin') : page.need;
    return (
      <section aria-labelledby="no-access">
        <h1 id="no-access">{t('noAccess.title')}</h1>
        <p>{t('noAccess.body', { need })}</p>
        <Link href="/">{t('noAccess.back')}</Link>
      </section>
    );
  }
  if (page.organization && me.organization_id === null) {
    return <p role="status">{t('tenant.required')}</p>;
  }
  const Page = page.component;
  return <Page params={params} />;
}

/**
 * The organizations the caller may act in; the choice is sent as X-Aiplane-Organization and
 * the page reloads in the new context (spec: tenants-and-mcp.md, What the service does 6).
 */
function TenantSelector({ me }: { me: Me }): ReactNode {
  const { t } = useTranslation();
  // A platform admin may act in any tenant's organization: the registry's are offered too.
  const tenants = useQuery({
    queryKey: ['tenants', 'selector'],
    queryFn: () => api<{ tenants: Tenant[] }>('/v1/admin/tenants?limit=200'),
    enabled: me.platform_admin,
    // A tenant being provisioned gets its organization on the way: offered once it has one.
    refetchInterval: (query) => (query.state.data?.tenants.some(tenantBusy) ? REFRESH_MS : false),
  });
  const options = new Map(me.organizations.map((o) => [o.id, o.alias]));
  for (const tenant of tenants.data?.tenants ?? []) {
    if (tenant.organization_id && !options.has(tenant.organization_id)) {
      options.set(tenant.organization_id, tenant.slug);
    }
  }
  if (options.size === 0) return null;
  const chosen = selectedOrganization() ?? me.organization_id ?? '';
  return (
    <div className="tenant-selector">
      <label htmlFor="tenant-selector">{t('tenant.label')}</label>
      <select
        id="tenant-selector"
        value={chosen}
        onChange={(e) => {
          selectOrganization(e.target.value || null);
          window.location.reload();
        }}
      >
        {(chosen === '' || !options.has(chosen)) && (
          <option value={chosen}>{chosen === '' ? t('tenant.none') : chosen}</option>
        )}
        {[...options].map(([id, alias]) => (
          <option key={id} value={id}>
            {alias}
          </option>
        ))}
      </select>
    </div>
  );
}
