/** What the authorization server sent the browser back with. */
export interface AuthorizationReturn {
  code: string;
  state: string;
  /** The whole return address, as the portal would receive it. */
  url: URL;
}

export interface BrowserLogin {
  username: string;
  password: string;
}

const MAX_STEPS = 20;

function decodeEntities(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

function attribute(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`, 'i').exec(tag);
  return m?.[1] === undefined ? undefined : decodeEntities(m[1]);
}

/** The first form of a page: where it posts and the fields a person would submit. */
function formOf(
  html: string,
  login: BrowserLogin | undefined,
): { action: string; fields: URLSearchParams } {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) {
    const text = html
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    throw new Error(`the page has no form: ${text.slice(0, 300)}`);
  }
  const action = attribute(form[1] ?? '', 'action');
  if (action === undefined) throw new Error('the form has no action');
  const fields = new URLSearchParams();
  for (const [input] of (form[2] ?? '').matchAll(/<input\b[^>]*>/gi)) {
    const name = attribute(input, 'name');
    if (name === undefined) continue;
    if (name === 'username' && login) fields.set(name, login.username);
    else if (name === 'password' && login) fields.set(name, login.password);
    else if (/type="hidden"/i.test(input)) fields.set(name, attribute(input, 'value') ?? '');
  }
  // A consent page: approve.
  if (/<button\b[^>]*name="accept"/i.test(form[2] ?? '')) fields.set('accept', 'Yes');
  return { action, fields };
}

/**
 * Follows an authorization URL as a browser would: redirects (cookies kept), a login form
 * filled with `login` (a username page and a password page are both handled), a consent page
 * approved, until the authorization server sends the browser to `returnTo`. Answers the
 * `code` and `state` it carries; an `error` there throws.
 */
export async function authorizeInBrowser(
  authorizeUrl: string,
  opts: { returnTo: string; login?: BrowserLogin },
): Promise<AuthorizationReturn> {
  const cookies = new Map<string, string>();
  let url = new URL(authorizeUrl);
  let request: { method: string; body?: URLSearchParams } = { method: 'GET' };
  for (let step = 0; step < MAX_STEPS; step++) {
    const res = await fetch(url, {
      method: request.method,
      redirect: 'manual',
      headers: {
        ...(cookies.size > 0
          ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') }
          : {}),
        ...(request.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(request.body ? { body: request.body } : {}),
    });
    for (const header of res.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const eq = (pair ?? '').indexOf('=');
      if (eq <= 0) continue;
      const name = (pair ?? '').slice(0, eq).trim();
      const value = (pair ?? '').slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(header)) cookies.delete(name);
      else cookies.set(name, value);
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) {
      await res.body?.cancel();
      const next = new URL(location, url);
      if (next.href.startsWith(opts.returnTo)) {
        const error = next.searchParams.get('error');
        if (error !== null) throw new Error(`the authorization server answered ${error}`);
        return {
          code: next.searchParams.get('code') ?? '',
          state: next.searchParams.get('state') ?? '',
          url: next,
        };
      }
      url = next;
      request = { method: 'GET' };
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`${url.origin}${url.pathname} answered ${res.status}`);
    const form = formOf(html, opts.login);
    url = new URL(form.action, url);
    request = { method: 'POST', body: form.fields };
  }
  throw new Error(`no return to ${opts.returnTo} after ${MAX_STEPS} steps`);
}
