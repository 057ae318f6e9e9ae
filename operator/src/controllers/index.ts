import type { ControllerFactory } from '../operator.js';

/**
 * Every controller the operator runs. The TenantLifecycle controller (issue 4) and the
 * McpServer controller (issue 6) register here; until then the operator runs the runtime
 * alone (leader election, health, metrics) with no controller.
 */
export const allControllers: ControllerFactory = () => [];
