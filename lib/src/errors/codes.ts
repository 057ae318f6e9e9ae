/**
 * Every platform error code: its HTTP status, the JSON-RPC code the gateway uses for it (when
 * it has one), and what it means. `Record<ErrorCode, …>` makes the compiler demand an entry
 * for every code; `docs/errors.md` documents each one (a test keeps the two equal).
 */
export const ERROR_CODES = {
  // Authentication and access (issue 3)
  authentication_required: { status: 401, description: 'no credentials were sent' },
  invalid_token: {
    status: 401,
    description:
      'the bearer JWT is malformed, expired, not yet valid, wrongly signed, or for another issuer or audience',
  },
  invalid_api_key: {
    status: 401,
    description: 'the API key is malformed, unknown or revoked, or its owner is disabled',
  },
  permission_denied: {
    status: 403,
    description: 'the caller lacks the permission or role the route requires',
  },
  interactive_login_required: {
    status: 403,
    description: 'the action needs a signed-in user (JWT); API keys cannot do it',
  },
  organization_required: {
    status: 400,
    description: 'the route acts in an organization and none could be chosen for the caller',
  },
  organization_access_denied: {
    status: 403,
    description: 'the organization named in X-Aiplane-Organization is not one of the caller’s',
  },
  api_key_not_found: { status: 404, description: 'no API key of the caller has this id' },
  route_not_found: { status: 404, description: 'no route matches the method and path' },
  request_too_large: { status: 413, description: 'the request body exceeds the size limit' },
  unsupported_media_type: {
    status: 415,
    description:
      'the body’s content type, charset or encoding is not supported (JSON bodies are UTF-8)',
  },
  bad_request: {
    status: 400,
    description:
      'the request could not be read (aborted or inconsistent length), sends a credential header twice, or has a NUL (%00) in its path or query',
  },
  organization_invalid: {
    status: 400,
    description:
      'X-Aiplane-Organization must be an organization id (a UUID) unless it names one of the caller’s own organizations',
  },
  identity_provider_unavailable: {
    status: 503,
    description: 'the identity provider could not be reached to check the caller; retry',
  },
  internal_error: {
    status: 500,
    description: 'an unexpected failure; the cause is in the server log',
  },

  // Tenant administration (spec: "not shown"; docs/adr/0006)
  tenant_slug_conflict: {
    status: 409,
    description: 'a tenant with this slug exists (or is still being deleted)',
  },
  tenant_not_found: { status: 404, description: 'no tenant has this lifecycle id' },
  organization_not_provisioned: {
    status: 409,
    description:
      'the organization has no provisioned tenant (namespace) yet, so nothing can be created in it',
  },

  // Platform settings (docs/adr/0018)
  config_version_mismatch: {
    status: 412,
    description:
      'If-Match names another version of the configuration than the current one (it changed since it was read)',
  },
  branding_logo_not_found: {
    status: 404,
    description: 'the organization has no branding logo (none was uploaded, or it was reset)',
  },

  // Resource profiles (docs/adr/0023)
  resource_profile_not_found: {
    status: 404,
    description: 'no resource profile of the organization has this name',
  },
  resource_profile_exists: {
    status: 409,
    description: 'the organization already has a resource profile of this name',
  },
  // Model-installer downloads (docs/adr/0025)
  model_download_not_found: {
    status: 404,
    description: 'no model download of the organization has this id',
  },
  model_download_source_invalid: {
    status: 400,
    description:
      'a file’s source address breaks a rule of remote addresses (the message names the file and the rule)',
  },
  model_download_in_progress: {
    status: 409,
    description: 'the model has an active download already in the organization',
  },
  model_download_not_active: {
    status: 409,
    description: 'the download is completed, failed or cancelled already',
  },
  // Files and folders (docs/adr/0032)
  file_not_found: {
    status: 404,
    description: 'no file the caller may read in the organization has this id',
  },
  folder_not_found: {
    status: 404,
    description: 'no folder the caller may read in the organization has this id',
  },
  file_access_denied: {
    status: 403,
    description:
      'the caller may read the file or folder but its role (viewer, editor, owner) does not allow this change',
  },
  file_name_conflict: {
    status: 409,
    description: 'the destination folder already holds a file or folder of this name',
  },
  folder_move_cycle: {
    status: 409,
    description: 'a folder cannot move into itself or into one of its descendants',
  },
  share_not_found: {
    status: 404,
    description: 'the file, folder or agent has no share for this user or group',
  },
  file_content_missing: {
    status: 409,
    description: 'the file’s bytes are not in the blob store (removed outside the API)',
  },
  file_store_unavailable: {
    status: 503,
    description:
      'the file store (S3) did not answer, was overloaded or timed out after the retries (an upload stored nothing); retry',
  },
  file_store_error: {
    status: 502,
    description:
      'the file store (S3) refused the platform’s request (credentials, bucket or permissions; an upload stored nothing)',
  },
  // Model catalogue (docs/adr/0024)
  model_not_found: {
    status: 404,
    description: 'no catalogue entry the caller may see has this id',
  },
  model_exists: {
    status: 409,
    description:
      'the organization (or the platform-wide catalogue) already has a model of this name',
  },
  model_backend_address_invalid: {
    status: 400,
    description: 'the backend address violates a rule of remote addresses (the message names it)',
  },
  model_catalogue_admin_only: {
    status: 403,
    description: 'platform-wide entries and in-cluster backends are for platform admins only',
  },
  // Collections (docs/adr/0033)
  collection_not_found: {
    status: 404,
    description: 'the organization has no collection of this name',
  },
  // Reindexing (docs/adr/0034)
  reindex_running: {
    status: 409,
    description:
      'a reindex of the organization’s collection is running: wait for it to finish or cancel it first',
  },
  reindex_not_found: {
    status: 404,
    description: 'the collection has no reindex (or none running, to cancel)',
  },
  // Agents (Custom GPTs; spec: core-api.md, Sharing roles; docs/adr/0035)
  agent_not_found: {
    status: 404,
    description:
      'no agent the caller may see (own, shared with them or a group of theirs) has this id',
  },
  agent_modification_denied: {
    status: 403,
    description:
      'the caller may use the agent but its role does not allow the change: editing needs editor, deleting needs owner',
  },
  agent_share_panel_denied: {
    status: 403,
    description:
      'only the agent’s owners or an organization admin may read or change its shares; the caller’s role on it is viewer or editor',
  },

  // Knowledge engines: embeddings, reranker (spec: core-api.md, Errors; docs/adr/0031)
  rerank_bad_request: {
    status: 400,
    description:
      'the rerank query is empty or not a string, or the document list is empty, too long or holds a non-string (the message names the field)',
  },
  model_backend_unavailable: {
    status: 503,
    description:
      'the embedding or rerank model did not answer, was overloaded, rate limited or timed out after the retries; retry',
  },
  model_backend_error: {
    status: 502,
    description:
      'the embedding or rerank backend refused the platform’s request or credentials, or answered something unreadable',
  },

  // The speech socket WS /v1/stt (spec: core-api.md, Errors; docs/adr/0036): sent in an error
  // frame, then the socket closes with `wsClose`; the status is the nearest HTTP meaning.
  parameter_renamed: {
    status: 400,
    wsClose: 1008,
    description:
      'the speech socket’s `language` parameter was renamed to `lang` (release 1.2.0); the error lists the supported languages',
  },
  unsupported_language: {
    status: 400,
    wsClose: 1008,
    description: 'the speech socket’s `lang` is not one of its languages (listed in the error)',
  },
  invalid_encoding: {
    status: 400,
    wsClose: 1008,
    description: 'the speech socket’s `encoding` is missing or not one of its encodings',
  },
  invalid_sample_rate: {
    status: 400,
    wsClose: 1008,
    description:
      'the speech socket’s `sample_rate_hz` is missing for a PCM encoding, or not an integer from 8000 to 192000',
  },
  speech_message_invalid: {
    status: 400,
    wsClose: 1008,
    description:
      'a text message of the speech socket is not the handshake (first) or `{"type":"end"}` (after it), or breaks their rules (the message names the field)',
  },
  speech_audio_before_ready: {
    status: 400,
    wsClose: 1008,
    description:
      'audio came before the server’s `session_ready` frame (send the handshake, then wait)',
  },
  speech_language_unavailable: {
    status: 422,
    wsClose: 1008,
    description:
      'the engine the session uses cannot recognise this language, though the socket supports it (the error lists the engine’s languages)',
  },
  speech_audio_invalid: {
    status: 422,
    wsClose: 1007,
    description:
      'the audio cannot be decoded in its encoding: a bad WAV header or unsupported WAV format, not Ogg/WebM opus or MP3, corrupt data',
  },
  speech_frame_too_large: {
    status: 413,
    wsClose: 1009,
    description: 'an audio frame is larger than AIPLANE_STT_MAX_FRAME_BYTES',
  },
  speech_rate_exceeded: {
    status: 429,
    wsClose: 1008,
    description:
      'audio arrived faster than AIPLANE_STT_REALTIME_FACTOR times real time (beyond AIPLANE_STT_BURST_MS ahead)',
  },
  speech_session_too_long: {
    status: 400,
    wsClose: 1008,
    description:
      'the session reached AIPLANE_STT_MAX_SESSION_SECONDS; what was heard was transcribed first',
  },
  speech_idle_timeout: {
    status: 408,
    wsClose: 1008,
    description:
      'the client sent nothing for AIPLANE_STT_IDLE_TIMEOUT_SECONDS; what was heard was transcribed first',
  },
  speech_session_limit_reached: {
    status: 429,
    wsClose: 1013,
    description:
      'the user or the organization has as many speech sessions open as allowed (per API replica); retry later',
  },
  speech_backend_unavailable: {
    status: 503,
    wsClose: 1013,
    description:
      'the speech engine cannot run now: not installed, not starting, or its backend unreachable or overloaded after the retries; retry later',
  },
  speech_engine_failed: {
    status: 502,
    wsClose: 1011,
    description:
      'the speech engine broke during the session: its process died, or its backend refused the platform’s request or answered something unreadable',
  },

  // MCP management and gateway (spec: tenants-and-mcp.md, Errors)
  mcp_server_address_invalid: {
    status: 400,
    description: 'remote address violates a rule (the message names it)',
  },
  mcp_server_image_invalid: {
    status: 400,
    description: 'image reference not acceptable to the cluster',
  },
  mcp_server_runtime_mismatch: {
    status: 400,
    description: 'update uses the other runtime’s shape',
  },
  mcp_server_does_not_use_oauth: {
    status: 400,
    description: 'server presented no OAuth challenge',
  },
  mcp_oauth_state_invalid: {
    status: 400,
    description: 'state unknown, expired, used, or another user’s',
  },
  agent_mcp_server_not_in_organization: {
    status: 400,
    description: 'agent references a server outside the organization',
  },
  mcp_server_access_denied: {
    status: 403,
    jsonRpc: -32002,
    description: 'server absent, in another organization, or not usable by the caller',
  },
  mcp_server_management_denied: { status: 403, description: 'caller is not a Platform Admin' },
  mcp_credential_not_linked: {
    status: 403,
    jsonRpc: -32003,
    description: 'no credential linked for the server',
  },
  mcp_credential_rejected: {
    status: 403,
    jsonRpc: -32004,
    description: 'upstream refused the linked credential',
  },
  mcp_credential_expired: {
    status: 403,
    jsonRpc: -32005,
    description: 'OAuth credential can no longer be renewed',
  },
  mcp_server_name_conflict: {
    status: 409,
    description: 'another server of the organization has the name',
  },
  mcp_server_environment_not_stored: {
    status: 503,
    description: 'environment could not be written; nothing recorded',
  },
  mcp_server_not_ready: { status: 503, description: 'managed workload not serving yet' },
  mcp_server_unreachable: {
    status: 503,
    description: 'server did not answer or complete an MCP handshake',
  },
  mcp_server_timeout: {
    status: 504,
    jsonRpc: -32010,
    description:
      'the MCP server did not connect, answer or go on streaming within the gateway’s timeouts',
  },
  mcp_server_response_too_large: {
    status: 502,
    jsonRpc: -32011,
    description: 'the MCP server’s answer exceeds what the gateway buffers to filter it',
  },
  mcp_oauth_upstream_error: {
    status: 503,
    description: 'OAuth discovery, registration or exchange failed; retry',
  },
  mcp_oauth_not_configured: {
    status: 503,
    description: 'deployment publishes no OAuth return address',
  },

  // Gateway caps (issue 14; docs/adr/0010, "Caps")
  mcp_gateway_limit_reached: {
    status: 429,
    jsonRpc: -32029,
    description:
      'too many concurrent requests or live sessions for the user or organization; retry after Retry-After seconds',
  },
} as const satisfies Record<
  string,
  { status: number; jsonRpc?: number; wsClose?: number; description: string }
>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

/** The WebSocket close code a socket error ends with (1008, policy violation, unless listed). */
export function wsCloseOf(code: ErrorCode): number {
  const entry = ERROR_CODES[code];
  return 'wsClose' in entry ? entry.wsClose : 1008;
}
