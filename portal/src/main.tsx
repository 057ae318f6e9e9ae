import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import i18next from 'i18next';
import { Router } from 'wouter';
import { App } from './app';
import { CALLBACK_PATH, completeSignIn, createAuth, currentUser, signIn } from './auth';
import { loadConfig } from './config';
import { initI18n } from './i18n';
import { ApiError, selectOrganization } from './api';
import './styles.css';

const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');
const root = createRoot(document.getElementById('root') as HTMLElement);
const render = (node: ReactNode) => root.render(<StrictMode>{node}</StrictMode>);
const t = (key: string) => i18next.t(key);

function Failure({ title, error, action }: { title: string; error: unknown; action?: ReactNode }) {
  return (
    <main id="main" className="center">
      <h1>{title}</h1>
      <p role="alert">{error instanceof Error ? error.message : String(error)}</p>
      {action}
    </main>
  );
}

function SignIn() {
  return (
    <main id="main" className="center">
      <h1>{t('signin.title')}</h1>
      <p>{t('signin.lead')}</p>
      <button type="button" className="primary" onClick={() => void signIn()}>
        {t('signin.button')}
      </button>
    </main>
  );
}

async function start(): Promise<void> {
  await initI18n();
  try {
    createAuth(await loadConfig());
  } catch (err) {
    render(<Failure title={t('app.failed')} error={err} />);
    return;
  }
  if (window.location.pathname === CALLBACK_PATH) {
    render(<p className="loading">{t('signin.completing')}</p>);
    try {
      window.history.replaceState(null, '', await completeSignIn());
    } catch (err) {
      render(
        <Failure
          title={t('signin.failed')}
          error={err}
          action={
            <button type="button" onClick={() => void signIn(`${BASE}/`)}>
              {t('signin.again')}
            </button>
          }
        />,
      );
      return;
    }
  }
  if (!(await currentUser())) {
    render(<SignIn />);
    return;
  }
  const queries = new QueryClient({
    defaultOptions: {
      queries: {
        // A refusal is an answer: retry only when the API could not be reached or failed.
        retry: (count, err) =>
          count < 2 && (!(err instanceof ApiError) || err.status === 0 || err.status >= 500),
        refetchOnWindowFocus: false,
      },
    },
  });
  // An organization the caller may no longer act in: forget it and ask again.
  queries.getQueryCache().subscribe((event) => {
    const err: unknown = event.query.state.error;
    if (err instanceof ApiError && err.code === 'organization_access_denied') {
      selectOrganization(null);
    }
  });
  render(
    <QueryClientProvider client={queries}>
      <Router base={BASE}>
        <App />
      </Router>
    </QueryClientProvider>,
  );
}

void start();
