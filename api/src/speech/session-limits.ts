/**
 * Open speech sessions per user and per organization, on this API replica (docs/adr/0036):
 * a session takes a slot of each when its socket opens and gives them back when it closes.
 */
export class SessionSlots {
  private readonly users = new Map<string, number>();
  private readonly organizations = new Map<string, number>();

  constructor(
    private readonly perUser: number,
    private readonly perOrganization: number,
  ) {}

  /**
   * Takes a slot of the user's and of the organization's caps: the function that gives them
   * back (once, however often it is called), or which cap is full.
   */
  take(userId: string, organizationId: string): (() => void) | 'user' | 'organization' {
    const byUser = this.users.get(userId) ?? 0;
    const byOrganization = this.organizations.get(organizationId) ?? 0;
    if (byUser >= this.perUser) return 'user';
    if (byOrganization >= this.perOrganization) return 'organization';
    this.users.set(userId, byUser + 1);
    this.organizations.set(organizationId, byOrganization + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      decrement(this.users, userId);
      decrement(this.organizations, organizationId);
    };
  }

  /** Sessions open now (all users). */
  get open(): number {
    let n = 0;
    for (const v of this.users.values()) n += v;
    return n;
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 1) - 1;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}

/**
 * How fast audio arrives: at most `factor` times real time, with `burstMs` of audio allowed
 * ahead at any moment (a client that recorded before `session_ready` sends that first).
 * Counted in milliseconds of decoded audio from the first audio frame on.
 */
export class AudioPace {
  private firstAt: number | undefined;
  private audioMs = 0;

  constructor(
    private readonly factor: number,
    private readonly burstMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Marks the arrival of the first audio (the clock starts). */
  started(): void {
    this.firstAt ??= this.now();
  }

  /** Counts `ms` more of audio: false when the audio is now ahead of the allowed pace. */
  add(ms: number): boolean {
    this.started();
    this.audioMs += ms;
    const elapsed = this.now() - (this.firstAt as number);
    return this.audioMs <= this.burstMs + this.factor * elapsed;
  }

  /** Milliseconds of audio counted. */
  get total(): number {
    return this.audioMs;
  }
}
