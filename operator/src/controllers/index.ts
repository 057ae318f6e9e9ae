import type { ControllerFactory } from '../operator.js';
import { PostgresProvisioner } from '../providers/database/index.js';
import { mcpServerController } from './mcp-server/index.js';
import { tenantLifecycleController } from './tenant-lifecycle/index.js';

/**
 * Every controller the operator runs: TenantLifecycle and McpServer.
 */
export const allControllers: ControllerFactory = (deps) => {
  const db = deps.config.tenants.database;
  let databases: PostgresProvisioner | undefined;
  if (db) {
    const admin = new URL(db.adminUrl);
    databases = new PostgresProvisioner({
      admin: {
        host: admin.hostname,
        port: Number(admin.port || 5432),
        user: decodeURIComponent(admin.username),
        password: decodeURIComponent(admin.password),
        database: decodeURIComponent(admin.pathname.replace(/^\//, '')) || 'postgres',
      },
      tenantEndpoint: { host: db.host, port: db.port },
      logger: deps.logger,
    });
  }
  return [tenantLifecycleController(deps, databases), mcpServerController(deps)];
};
