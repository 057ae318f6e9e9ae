import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { cacheDir, versions } from './paths.js';
import { freePort, StopWaiting, waitFor } from './ports.js';
import { startProcess, type ManagedProcess } from './process.js';

/** One tool call a mock model answers (OpenAI's `tool_calls[]` item). */
export interface LiteLlmMockToolCall {
  id: string;
  name: string;
  /** The arguments object; LiteLLM sends it JSON-encoded, as OpenAI does. */
  arguments: Record<string, unknown>;
}

/** A model of the proxy that runs nothing: LiteLLM's own `mock_response` answers it. */
export interface LiteLlmMockModel {
  /** The name callers (a catalogue entry's `backend_model`) ask for. */
  name: string;
  /** The text every answer carries (streamed three characters a chunk). */
  text: string;
  /**
   * Tool calls every non-streaming answer carries beside the text (LiteLLM's `mock_tool_calls`;
   * it answers them with `finish_reason: "stop"`, and a streamed answer carries the text only).
   */
  toolCalls?: LiteLlmMockToolCall[];
}

export interface LiteLlmProxyOptions {
  /** The proxy's master key: every request must carry it as `Authorization: Bearer`. */
  masterKey: string;
  models: LiteLlmMockModel[];
  /** Where the proxy's output goes (appended). */
  logFile: string;
  /** How long to wait for `/health/liveliness` (default 180 s: a cold start is slow). */
  readyTimeoutMs?: number;
}

export interface LiteLlmProxy {
  /** `http://127.0.0.1:<port>/v1`: what a catalogue entry's base_url is. */
  baseUrl: string;
  port: number;
  version: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/** The virtualenv hack/lib/install-litellm.sh makes (one per pinned version). */
export function liteLlmPaths(): { venv: string; bin: string; version: string } {
  const version = versions().LITELLM_VERSION as string;
  const venv = join(cacheDir(), `venv-litellm-${version}`);
  return { venv, bin: join(venv, 'bin', 'litellm'), version };
}

/** The proxy's configuration: the mock models and the master key, nothing that reaches out. */
export function liteLlmConfig(opts: Pick<LiteLlmProxyOptions, 'masterKey' | 'models'>): string {
  return stringify({
    model_list: opts.models.map((m) => ({
      model_name: m.name,
      litellm_params: {
        model: `openai/${m.name}`,
        // Never used (the mock answers), but the OpenAI provider wants one to be set.
        api_key: 'unused',
        mock_response: m.text,
        ...(m.toolCalls && {
          mock_tool_calls: m.toolCalls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.arguments) },
          })),
        }),
      },
    })),
    general_settings: { master_key: opts.masterKey },
  });
}

/**
 * Starts LiteLLM's proxy (PyPI `litellm[proxy]`, installed by hack/lib/install-litellm.sh) on a
 * free loopback port with mock models, and waits for `/health/liveliness`. A third-party
 * OpenAI-compatible backend: the messages API's translation is tested against an
 * implementation nobody here wrote. No database, nothing fetched: the bundled cost map.
 */
export async function startLiteLlmProxy(opts: LiteLlmProxyOptions): Promise<LiteLlmProxy> {
  const { venv, bin, version } = liteLlmPaths();
  if (!existsSync(bin)) {
    throw new Error(`LiteLLM ${version} is not installed at ${venv}; run make setup`);
  }
  // The config holds the master key: a private directory, removed on stop, never in a log.
  const dir = mkdtempSync(join(tmpdir(), 'aiplane-litellm-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, liteLlmConfig(opts), { mode: 0o600 });
  const port = await freePort();
  const proc = startProcess({
    name: 'litellm',
    command: bin,
    args: ['--config', config, '--host', '127.0.0.1', '--port', String(port), '--num_workers', '1'],
    logFile: opts.logFile,
    cwd: dir,
    env: {
      PATH: `${join(venv, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: dir,
      // Offline: the cost map bundled in the package, not the one on the network (this
      // version has no telemetry left to switch off); no feedback banner, no docs pages.
      LITELLM_LOCAL_MODEL_COST_MAP: 'True',
      LITELLM_DONT_SHOW_FEEDBACK_BOX: 'True',
      DISABLE_SCHEMA_UPDATE: 'True',
      NO_DOCS: 'True',
      PYTHONUNBUFFERED: '1',
    },
  });
  const stop = async () => {
    await proc.stop('SIGTERM', 10_000);
    rmSync(dir, { recursive: true, force: true });
  };
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  try {
    await waitFor(
      `LiteLLM proxy on port ${port} (log: ${opts.logFile})`,
      async () => {
        if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
          throw new StopWaiting(`LiteLLM proxy exited early; see ${opts.logFile}`);
        }
        const res = await fetch(`http://127.0.0.1:${port}/health/liveliness`, {
          signal: AbortSignal.timeout(2_000),
        });
        return res.ok;
      },
      { timeoutMs: opts.readyTimeoutMs ?? 180_000, intervalMs: 500 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl, port, version, process: proc, stop };
}
