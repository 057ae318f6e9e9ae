/** Zero crossings of the sinc kernel on each side, at the cutoff: the filter's length. */
const ZERO_CROSSINGS = 16;
/** Kernel values tabulated per input sample; between two, linear interpolation. */
const TABLE_RESOLUTION = 256;
/** The cutoff as a share of the lower Nyquist frequency (room for the transition band). */
const ROLLOFF = 0.95;

/**
 * A streaming band-limited resampler of mono samples (windowed-sinc interpolation, Blackman
 * window, 16 zero crossings). Downsampling filters below the output's Nyquist frequency first,
 * so what the output cannot carry does not fold back into speech (aliasing). Chunks may be any
 * size; the output is the same as for the whole signal at once. Equal rates pass through.
 */
export class Resampler {
  /** Input samples per output sample. */
  private readonly step: number;
  /** The cutoff relative to the input's Nyquist frequency. */
  private readonly cutoff: number;
  /** The kernel's half width in input samples. */
  private readonly half: number;
  private readonly table: Float32Array;
  /** Input not yet behind every future output; `buf[0]` is input sample `bufStart`. */
  private buf = new Float32Array(0);
  private bufStart: number;
  private inputCount = 0;
  /** The next output sample's index. */
  private next = 0;

  constructor(
    readonly inRate: number,
    readonly outRate: number,
  ) {
    this.step = inRate / outRate;
    this.cutoff = Math.min(1, outRate / inRate) * ROLLOFF;
    this.half = Math.ceil(ZERO_CROSSINGS / this.cutoff);
    const size = this.half * TABLE_RESOLUTION + 2;
    this.table = new Float32Array(size);
    for (let i = 0; i < size; i += 1) this.table[i] = this.kernel(i / TABLE_RESOLUTION);
    // Samples before the signal are silence.
    this.buf = new Float32Array(this.half);
    this.bufStart = -this.half;
  }

  /** The resampled signal for this chunk of input (some of it may come with the next). */
  push(input: Float32Array): Float32Array {
    if (this.inRate === this.outRate) return input;
    this.append(input);
    this.inputCount += input.length;
    return this.produce(this.bufStart + this.buf.length - 1 - this.half);
  }

  /** The end of the signal: the outputs that waited for input after it (silence). */
  flush(): Float32Array {
    if (this.inRate === this.outRate) return new Float32Array(0);
    this.append(new Float32Array(this.half + 1));
    return this.produce(Number.POSITIVE_INFINITY, Math.floor(this.inputCount / this.step));
  }

  /** Outputs whose window ends at or before input sample `lastInput` (and before `limit`). */
  private produce(lastInput: number, limit = Number.POSITIVE_INFINITY): Float32Array {
    const out: number[] = [];
    const { step, half, buf, bufStart, table } = this;
    for (;;) {
      if (this.next >= limit) break;
      const t = this.next * step;
      const hi = Math.floor(t + half);
      if (hi > lastInput || hi >= bufStart + buf.length) break;
      const lo = Math.ceil(t - half);
      let sum = 0;
      for (let n = lo; n <= hi; n += 1) {
        const pos = Math.abs(t - n) * TABLE_RESOLUTION;
        const i = Math.floor(pos);
        const frac = pos - i;
        const k = (table[i] as number) + ((table[i + 1] as number) - (table[i] as number)) * frac;
        sum += (buf[n - bufStart] as number) * k;
      }
      out.push(sum);
      this.next += 1;
    }
    // Keep only what the next output's window reaches.
    const keepFrom = Math.ceil(this.next * step - half);
    if (keepFrom > bufStart) {
      const drop = Math.min(keepFrom - bufStart, buf.length);
      this.buf = buf.slice(drop);
      this.bufStart = bufStart + drop;
    }
    return Float32Array.from(out);
  }

  private append(input: Float32Array): void {
    const merged = new Float32Array(this.buf.length + input.length);
    merged.set(this.buf);
    merged.set(input, this.buf.length);
    this.buf = merged;
  }

  /** The windowed sinc at `x` input samples from the centre, scaled for unity gain. */
  private kernel(x: number): number {
    if (x >= this.half) return 0;
    const c = this.cutoff;
    const arg = Math.PI * c * x;
    const sinc = x === 0 ? 1 : Math.sin(arg) / arg;
    const w = x / this.half; // 0 at the centre, 1 at the edge
    const blackman = 0.42 + 0.5 * Math.cos(Math.PI * w) + 0.08 * Math.cos(2 * Math.PI * w);
    return c * sinc * blackman;
  }
}
