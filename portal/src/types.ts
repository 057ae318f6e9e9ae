// The API's answers as the portal reads them (the API's schemas: api/src/*/routes.ts).

export type Permission = 'can_access_api' | 'can_manage_models' | 'can_edit_config';

export interface Me {
  user_id: string;
  username: string | null;
  authenticated_via: 'jwt' | 'api_key';
  platform_admin: boolean;
  roles: string[];
  permissions: Permission[];
  organizations: { id: string; alias: string; permissions: Permission[] }[];
  organization_id: string | null;
  organization_header: string;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}
export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  last_transition_time: string;
}

export interface Tenant {
  id: string;
  organization_id: string | null;
  slug: string;
  display_name: string | null;
  desired_state: 'present' | 'absent';
  created_at: string | null;
  updated_at: string | null;
  generation: number;
  observed_generation: number | null;
  phase: string;
  stage: string;
  services: {
    identity: { enabled: true; ready: boolean; organization_id: string | null };
    database: { enabled: boolean; ready: boolean | null; name: string | null };
  };
  conditions: Condition[];
}

export interface McpServer {
  id: string;
  organization_id: string;
  name: string;
  display_name: string;
  description: string | null;
  runtime: 'managed' | 'remote';
  tool_allowlist: string[];
  address: string | null;
  image: string | null;
  port: number | null;
  path: string | null;
  env: { name: string; configured: true }[];
  created_at: string;
  updated_at: string;
  linked: boolean;
  credential_last_used_at: string | null;
  status: {
    ready: boolean;
    replicas: number;
    ready_replicas: number;
    conditions: Condition[];
  } | null;
  gateway_url: string | null;
}
