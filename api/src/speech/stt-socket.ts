import type { IncomingMessage } from 'node:http';
import { Type } from '@sinclair/typebox';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '@aiplane/lib';
import { type Authenticator, hasPermission, type Principal } from '@aiplane/lib/auth';
import { ApiError } from '@aiplane/lib/errors';
import type { DocumentedRoute } from '@aiplane/lib/service';

export const STT_PATH = '/v1/stt';
export const STT_LANGUAGES = ['cs', 'de', 'el', 'en', 'fr', 'sk'] as const;
export const STT_ENCODINGS = ['pcm_int16', 'pcm_float32', 'wav', 'mp3', 'opus'] as const;
const POLICY_VIOLATION = 1008;

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
      'A WebSocket: send `Connection: Upgrade` and `Upgrade: websocket`. The server sends a `session_ready` frame before it accepts binary audio, then transcript frames as JSON messages. An unsupported `lang`, or the old parameter `language`, gets an error frame and close code 1008. Authenticate with the `token` query parameter (a JWT or an API key); browsers cannot set headers on a WebSocket.',
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
          pattern: '^[1-9][0-9]{0,6}$',
          description: 'required for pcm_int16 and pcm_float32',
        }),
      ),
    }),
    responses: { 101: { description: 'Switching protocols: the socket is open.' } },
    websocket: true,
  },
};
const TRY_AGAIN_LATER = 1013;

function refuseUpgrade(socket: Duplex, err: ApiError): void {
  const body = JSON.stringify({ error: { code: err.code, message: err.message } });
  const headers = Object.entries(err.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${err.status} ${err.status === 401 ? 'Unauthorized' : 'Forbidden'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`,
  );
}

function errorFrame(
  ws: WebSocket,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  ws.send(JSON.stringify({ type: 'error', error: { code, message, ...extra } }));
}

/**
 * The speech-to-text socket `WS /v1/stt`: authenticated with the `token` query parameter (a JWT
 * or an API key) and `can_access_api`, then the query is checked as the spec says. No speech
 * backend is wired yet, so a valid session ends with `speech_backend_unavailable` (1013).
 */
export function sttUpgradeHandler(opts: { authenticator: Authenticator; logger: Logger }) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });

  const session = (ws: WebSocket, url: URL, principal: Principal) => {
    const q = url.searchParams;
    if (q.has('language')) {
      errorFrame(ws, 'parameter_renamed', '`language` was renamed to `lang`', {
        supported_languages: STT_LANGUAGES,
      });
      ws.close(POLICY_VIOLATION, 'use lang, not language');
      return;
    }
    const lang = q.get('lang') ?? 'en';
    if (!(STT_LANGUAGES as readonly string[]).includes(lang)) {
      errorFrame(ws, 'unsupported_language', `language "${lang}" is not supported`, {
        supported_languages: STT_LANGUAGES,
      });
      ws.close(POLICY_VIOLATION, 'unsupported_language');
      return;
    }
    const encoding = q.get('encoding');
    if (!encoding || !(STT_ENCODINGS as readonly string[]).includes(encoding)) {
      errorFrame(ws, 'invalid_encoding', `encoding must be one of ${STT_ENCODINGS.join(', ')}`);
      ws.close(POLICY_VIOLATION, 'invalid encoding');
      return;
    }
    const rate = q.get('sample_rate_hz');
    if (encoding.startsWith('pcm_') && !(rate && /^[1-9]\d{0,6}$/.test(rate))) {
      errorFrame(
        ws,
        'invalid_sample_rate',
        'sample_rate_hz (a positive integer) is required for PCM encodings',
      );
      ws.close(POLICY_VIOLATION, 'invalid sample_rate_hz');
      return;
    }
    opts.logger.info(
      { userId: principal.userId, lang, encoding },
      'stt session refused: no speech backend',
    );
    errorFrame(ws, 'speech_backend_unavailable', 'no speech backend is configured');
    ws.close(TRY_AGAIN_LATER, 'speech backend unavailable');
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
        wss.handleUpgrade(req, socket, head, (ws) => session(ws, url, principal));
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
