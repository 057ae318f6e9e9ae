import assert from 'node:assert/strict';
import { formatKubeTime } from './kube-time.js';

describe('formatKubeTime', () => {
  it('writes whole seconds in UTC with a Z, as metav1.Time does', () => {
    assert.equal(formatKubeTime(new Date('2026-01-01T00:05:00.456Z')), '2026-01-01T00:05:00Z');
  });
});
