export { fieldsOf } from './field-errors.js';
export {
  type FakeApiServer,
  type FakeHandler,
  type FakeRequest,
  kubeStatus,
  sendJson,
  startFakeApiServer,
} from './fake-api-server.js';
