/** The client's audio cannot be decoded: a bad header, a corrupt stream, an unsupported format. */
export class AudioInvalid extends Error {
  override readonly name = 'AudioInvalid';
}

/** A decoder or engine the platform needs cannot run (not installed, failed to start). */
export class EngineUnavailable extends Error {
  override readonly name = 'EngineUnavailable';
}

/** An engine failed during a session (its process died, its backend refused or broke). */
export class EngineFailed extends Error {
  override readonly name = 'EngineFailed';
}
