// The API's answers the settings pages read (api/src/platform, api/src/inference,
// api/src/knowledge: the schemas there are the source).

export interface SystemConfig {
  retrieval_k: number;
  rerank_top_n: number | null;
  reranker_enabled: boolean;
  reranker_model: string | null;
  embedding_model: string | null;
  service_desk: {
    enabled: boolean;
    custom_gpt_id: string | null;
    document_ids: string[] | null;
  };
}

export interface LogoInfo {
  content_type: string;
  bytes: number;
  width: number | null;
  height: number | null;
  removed?: string[];
}

/** language → namespace → key → value */
export type Overrides = Record<string, Record<string, Record<string, string>>>;

export interface CatalogueModel {
  id: string;
  name: string;
  mode: string;
  organization_id: string | null;
  backend_kind: string;
  base_url: string | null;
  backend_model: string;
  has_api_key: boolean;
  context_window: number | null;
  tokenizer: string | null;
  in_cluster: boolean;
  active: boolean;
}

export const MODEL_MODES = ['chat', 'embedding', 'rerank', 'stt'] as const;

export interface ModelDownload {
  id: string;
  model: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  error: string | null;
  bytes_done: number;
  bytes_total: number | null;
  files: {
    path: string;
    url: string;
    status: string;
    bytes_done: number;
    bytes_total: number | null;
  }[];
  created_at: string;
}

/** A reindex and its counters (files: at the start, written, failed, skipped). */
export interface Reindex extends Record<'total' | 'completed' | 'failed' | 'skipped', number> {
  id: string;
  state: 'running' | 'cancelled' | 'finished' | 'failed';
  trigger: string;
  embedding_model: string;
  reason: string | null;
  started_at: string;
  finished_at: string | null;
}
