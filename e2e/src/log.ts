import { secrets } from './redact.js';

const started = Date.now();

/** A progress line on stdout: seconds since the suite started, the (redacted) message. */
export function log(message: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  console.log(`  [e2e ${seconds}s] ${secrets.redact(message)}`);
}
