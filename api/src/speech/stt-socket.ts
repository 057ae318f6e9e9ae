import type { IncomingMessage } from 'node:http';
import { Type } from '@sinclair/typebox';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '@aiplane/lib';
import {
  type Authenticator,
  hasPermission,
  ORGANIZATION_HEADER,
  organizationNamed,
  type Principal,
} from '@aiplane/lib/auth';
import { ApiError, wsCloseOf } from '@aiplane/lib/errors';
import type { DocumentedRoute } from '@aiplane/lib/service';
import type { SpeechEngine } from './engine.js';
import type { SpeechConfig } from './speech-config.js';
import { SessionSlots } from './session-limits.js';
import type { SpeechMetrics } from './speech-metrics.js';
import {
  errorFrame,
  sessionQuery,
  type SocketError,
  STT_ENCODINGS,
  STT_LANGUAGES,
} from './stt-protocol.js';
import { SttSession } from './stt-session.js';

export const STT_PATH = '/v1/stt';
export { STT_ENCODINGS, STT_LANGUAGES };

/**
 * `WS /v1/stt` in the OpenAPI document (docs/adr/0021): OpenAPI has no WebSocket, so it is the
 * upgrade GET, marked `x-aiplane-websocket`, authenticated by its `token` query parameter.
 */
export const STT_ROUTE: DocumentedRoute = {
  method: 'GET',
  path: STT_PATH,
  authenticated: true,
  permissions: ['can_access_api'],
  operation: {
    method: 'get',
    path: STT_PATH,
    operationId: 'speechToTextSocket',
    summary: 'Real-time speech-to-text (WebSocket)',
    description:
      'A WebSocket: send `Connection: Upgrade` and `Upgrade: websocket`. Authenticate with the `token` query parameter (a JWT or an API key); browsers cannot set headers on a WebSocket. The client sends a JSON handshake `{"type":"start","channels"?,"interim_results"?,"model"?}`; the server answers `session_ready` and only then accepts binary audio frames in the query’s `encoding`; it sends `{"type":"transcript","text","is_final","start_ms","end_ms"}` frames (interim ones when asked, final ones at pauses); `{"type":"end"}` flushes the last transcript and the server closes with 1000. Any refusal is an error frame `{"type":"error","error":{"code","message"}}` and a close code (an unsupported `lang` or the old `language` parameter: 1008). See docs/speech.md.',
    tags: ['speech'],
    query: Type.Object({
      lang: Type.Optional(
        Type.Union(
          STT_LANGUAGES.map((l) => Type.Literal(l)),
          { description: 'ISO 639-1; default en' },
        ),
      ),
      encoding: Type.Union(STT_ENCODINGS.map((e) => Type.Literal(e))),
      sample_rate_hz: Type.Optional(
        Type.String({
          pattern: '^[1-9][0-9]{3,5}$',
          description: 'required for pcm_int16 and pcm_float32: 8000 to 192000',
        }),
      ),
      organization: Type.Optional(
        Type.String({
          maxLength: 200,
          description: `the organization to act in (as the ${ORGANIZATION_HEADER} header, which browsers cannot send on a WebSocket); needed by members of several organizations`,
        }),
      ),
    }),
    responses: { 101: { description: 'Switching protocols: the socket is open.' } },
    websocket: true,
  },
};

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  503: 'Service Unavailable',
};

function refuseUpgrade(socket: Duplex, err: ApiError): void {
  const body = JSON.stringify({ error: { code: err.code, message: err.message } });
  const headers = Object.entries(err.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${err.status} ${REASONS[err.status] ?? 'Error'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`,
  );
}

export interface SttSocketOptions {
  authenticator: Authenticator;
  engineFor: (organizationId: string, model: string | undefined) => Promise<SpeechEngine>;
  config: Pick<SpeechConfig, 'limits' | 'ffmpeg'>;
  logger: Logger;
  metrics: SpeechMetrics;
}

/** The organization the socket acts in: the `organization` parameter, else the header. */
function organizationOfUpgrade(req: IncomingMessage, url: URL, principal: Principal): string {
  const header = req.headers[ORGANIZATION_HEADER];
  const named =
    url.searchParams.get('organization') ?? (Array.isArray(header) ? header[0] : header);
  try {
    return organizationNamed(principal, named);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'organization_required') {
      throw new ApiError(
        'organization_required',
        'name the organization to act in with the organization query parameter',
      );
    }
    throw err;
  }
}

/**
 * The speech-to-text socket `WS /v1/stt` (docs/adr/0036): the upgrade is authenticated with
 * the `token` query parameter (a JWT or an API key) and needs `can_access_api` in the
 * organization it acts in (refused as HTTP 401/403/400); then the query is checked as the spec
 * says, the user's and the organization's session caps are taken, and an SttSession runs.
 */
export function sttUpgradeHandler(opts: SttSocketOptions) {
  const limits = opts.config.limits;
  // ws refuses (1009) frames beyond this before they are buffered; the session's own limit,
  // below it, answers with an error frame first.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.maxFrameBytes * 2 + 4096,
  });
  const slots = new SessionSlots(limits.maxSessionsPerUser, limits.maxSessionsPerOrganization);

  const refuse = (ws: WebSocket, e: SocketError) => {
    ws.send(errorFrame(e));
    ws.close(wsCloseOf(e.code), e.code);
  };

  const open = (ws: WebSocket, url: URL, principal: Principal, organizationId: string) => {
    const query = sessionQuery(url.searchParams);
    if ('code' in query) {
      refuse(ws, query);
      return;
    }
    const release = slots.take(principal.userId, organizationId);
    if (typeof release !== 'function') {
      const cap =
        release === 'user' ? limits.maxSessionsPerUser : limits.maxSessionsPerOrganization;
      refuse(ws, {
        code: 'speech_session_limit_reached',
        message: `the ${release} has ${cap} speech sessions open already; retry later`,
        extra: { limit: release, max_sessions: cap },
      });
      return;
    }
    new SttSession(
      {
        engineFor: opts.engineFor,
        limits,
        ffmpeg: opts.config.ffmpeg,
        logger: opts.logger,
        metrics: opts.metrics,
      },
      { ws, userId: principal.userId, organizationId, query, release },
    );
  };

  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const token = url.searchParams.get('token') ?? undefined;
    opts.authenticator
      .authenticate({ bearer: token })
      .then((principal) => {
        if (!hasPermission(principal, 'can_access_api')) {
          throw new ApiError('permission_denied', 'this route needs the can_access_api permission');
        }
        const organizationId = organizationOfUpgrade(req, url, principal);
        if (!hasPermission(principal, 'can_access_api', organizationId)) {
          throw new ApiError('permission_denied', 'this route needs the can_access_api permission');
        }
        wss.handleUpgrade(req, socket, head, (ws) => open(ws, url, principal, organizationId));
      })
      .catch((err: unknown) => {
        if (err instanceof ApiError) refuseUpgrade(socket, err);
        else {
          opts.logger.error({ err }, 'websocket upgrade failed');
          socket.destroy();
        }
      });
  };
}
