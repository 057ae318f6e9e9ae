import assert from 'node:assert/strict';
import { statusKind, STATUS_LABEL } from './mcp-status';
import { ENGLISH } from './strings';

describe('the MCP registry status labels', function () {
  const words = (s: Parameters<typeof statusKind>[0]) => ENGLISH[STATUS_LABEL[statusKind(s)]];
  const reported = (ready: boolean) => ({
    ready,
    replicas: 1,
    ready_replicas: ready ? 1 : 0,
    conditions: [],
  });

  it('labels a remote server (status always null) "Not reported"', function () {
    assert.equal(words({ runtime: 'remote', status: null }), 'Not reported');
  });
  it('labels a managed server the cluster has not reported on "Status unknown"', function () {
    assert.equal(words({ runtime: 'managed', status: null }), 'Status unknown');
  });
  it('labels a reported managed server by its ready flag', function () {
    assert.equal(words({ runtime: 'managed', status: reported(true) }), 'Ready');
    assert.equal(words({ runtime: 'managed', status: reported(false) }), 'Not ready');
  });
});
