import { accessToken } from './auth';

export const ORGANIZATION_HEADER = 'X-Aiplane-Organization';
const ORGANIZATION_KEY = 'aiplane.organization';

/** The organization chosen in the tenant selector (sent as X-Aiplane-Organization), if any. */
export function selectedOrganization(): string | null {
  return window.localStorage.getItem(ORGANIZATION_KEY);
}

export function selectOrganization(id: string | null): void {
  if (id === null) window.localStorage.removeItem(ORGANIZATION_KEY);
  else window.localStorage.setItem(ORGANIZATION_KEY, id);
}

export interface FieldError {
  field: string;
  message: string;
}

/** A refusal from the API (or no answer at all: status 0), with the platform's code and fields. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly fields: FieldError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The message for one field of the request (422 validation failures), if the API named it. */
  fieldMessage(field: string): string | undefined {
    return this.fields.find((f) => f.field === field || f.field.startsWith(`${field}.`))?.message;
  }
}

interface ErrorBody {
  error?: { code?: string; message?: string; fields?: FieldError[] };
}

/**
 * Calls the API at this origin with the user's access token and the chosen organization. A
 * `Blob` body (an upload) is sent as its raw bytes with its own type, anything else as JSON.
 */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  const headers = await callerHeaders();
  const raw = init.body instanceof Blob;
  if (init.body !== undefined) {
    headers['content-type'] = raw
      ? (init.body as Blob).type || 'application/octet-stream'
      : 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      body:
        init.body === undefined ? undefined : raw ? (init.body as Blob) : JSON.stringify(init.body),
    });
  } catch {
    throw new ApiError(0, 'The API could not be reached.');
  }
  return responseOf<T>(res);
}

/** An answer of the API read whole: its JSON, or the refusal as an {@link ApiError}. */
export async function responseOf<T>(res: Response): Promise<T> {
  return answerOf<T>(res.status, res.statusText, await res.text());
}

/** The caller's headers: the access token and the chosen organization. */
export async function callerHeaders(): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  const token = await accessToken();
  if (token) headers.authorization = `Bearer ${token}`;
  const organization = selectedOrganization();
  if (organization) headers[ORGANIZATION_HEADER] = organization;
  return headers;
}

/** An answer's JSON body, or its refusal as an ApiError (fetch and XMLHttpRequest alike). */
export function answerOf<T>(status: number, statusText: string, text: string): T {
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (status < 200 || status >= 300) {
    const err = (body as ErrorBody | undefined)?.error;
    throw new ApiError(
      status,
      err?.message ?? (text.slice(0, 200) || statusText),
      err?.code,
      err?.fields ?? [],
    );
  }
  return body as T;
}

/** Reads a binary resource of the API (the logo) as an object URL, or null when absent. */
export async function apiBlobUrl(path: string): Promise<string | null> {
  const res = await fetch(path, { headers: await callerHeaders() });
  if (!res.ok) return null;
  return URL.createObjectURL(await res.blob());
}
