// Runs last (files run in name order): every log the run wrote, searched for every secret
// the run has seen (passwords, client secrets, tokens, API keys), and the Kubernetes Events
// the operator and the cluster recorded (issue 22: secrets never in a log or an event).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreV1Event } from '@kubernetes/client-node';
import { listAll } from '@aiplane/lib';
import { environment, kubeConfig } from './harness.js';
import { rememberedSecrets } from './secrets.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('secrets in the logs of the whole run', function () {
  it('finds no password, client secret, token or API key in any log file', function () {
    const secrets = rememberedSecrets();
    assert.ok(
      secrets.length >= 5,
      `only ${secrets.length} secrets were recorded: the sweep would prove nothing`,
    );
    const logs = [environment().controlPlane.logDir, join(environment().dir, 'logs')].flatMap(
      (d) => {
        try {
          return files(d);
        } catch {
          return [];
        }
      },
    );
    assert.ok(
      logs.some((f) => f.endsWith('api-auth.log')),
      'the API log was not captured',
    );
    const leaks: string[] = [];
    for (const file of logs) {
      const text = readFileSync(file, 'utf8');
      for (const secret of secrets) {
        if (text.includes(secret))
          leaks.push(`${file} contains a secret starting ${secret.slice(0, 4)}…`);
      }
    }
    assert.deepEqual(leaks, []);
  });

  it('finds none in the Kubernetes Events left in the cluster (reasons, messages, notes)', async function () {
    const secrets = rememberedSecrets();
    const { items: events } = await listAll<CoreV1Event>(kubeConfig(), {
      path: '/api/v1/events',
    });
    assert.ok(events.length > 0, 'the run left no Event at all: the sweep would prove nothing');
    const leaks: string[] = [];
    for (const e of events) {
      const text = JSON.stringify(e);
      for (const secret of secrets) {
        if (text.includes(secret)) {
          leaks.push(
            `an Event in ${e.metadata?.namespace ?? '?'} (${e.reason ?? '?'}) contains a secret starting ${secret.slice(0, 4)}…`,
          );
        }
      }
    }
    assert.deepEqual(leaks, []);
  });
});
