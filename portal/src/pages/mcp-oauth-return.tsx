import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { api } from '../api';
import { ErrorMessage } from '../components/error-message';

/** What the authorization server put on the return address. */
interface Returned {
  code: string | null;
  state: string | null;
  iss: string | null;
  error: string | null;
  errorDescription: string | null;
}

const read = (): Returned => {
  const q = new URLSearchParams(window.location.search);
  return {
    code: q.get('code'),
    state: q.get('state'),
    iss: q.get('iss'),
    error: q.get('error'),
    errorDescription: q.get('error_description'),
  };
};

/** States already posted in this page's life: a state is good once (spec: consumed). */
const posted = new Set<string>();

/**
 * The OAuth return page (`AIPLANE_MCP_OAUTH_REDIRECT_URL` = `<api>/portal/mcp/oauth/return`):
 * posts `code`, `state` (and `iss`) to `POST /v1/mcp/credential/oauth/callback` as the signed-in
 * user and says whether the credential is linked, or why not.
 */
export default function McpOAuthReturn() {
  const { t } = useTranslation();
  const [returned] = useState(read);
  const complete = useMutation({
    mutationFn: (body: { code: string; state: string; iss?: string }) =>
      api<{ server_id: string }>('/v1/mcp/credential/oauth/callback', { method: 'POST', body }),
  });
  const { code, state, iss } = returned;
  const { mutate } = complete;
  useEffect(() => {
    if (!code || !state || posted.has(state)) return;
    posted.add(state);
    // The code is single-use: off the address bar before anything else.
    window.history.replaceState(null, '', window.location.pathname);
    mutate({ code, state, ...(iss ? { iss } : {}) });
  }, [code, state, iss, mutate]);

  let body;
  if (returned.error) {
    body = (
      <div role="alert" className="alert alert-error">
        <p>{t('mcp.oauth.refused', { error: returned.error })}</p>
        {returned.errorDescription && <p>{returned.errorDescription}</p>}
      </div>
    );
  } else if (!code || !state) {
    body = (
      <p role="alert" className="alert alert-error">
        {t('mcp.oauth.incomplete')}
      </p>
    );
  } else if (complete.isError) {
    body = <ErrorMessage error={complete.error} />;
  } else if (complete.isSuccess) {
    body = (
      <>
        <p role="status" className="alert">
          {t('mcp.oauth.linked')}
        </p>
        <p>
          <Link href={`/mcp/${complete.data.server_id}/credential`}>{t('mcp.oauth.toServer')}</Link>
        </p>
      </>
    );
  } else {
    body = <p role="status">{t('mcp.oauth.completing')}</p>;
  }
  return (
    <section aria-labelledby="oauth-title">
      <h1 id="oauth-title">{t('mcp.oauth.title')}</h1>
      {body}
      <p>
        <Link href="/mcp">{t('nav.mcp')}</Link>
      </p>
    </section>
  );
}
