// The part of jsdom the SVG sanitiser uses. Its own typings (@types/jsdom) reference the DOM
// type library, which would change global types for every workspace importing the API.
declare module 'jsdom' {
  export class JSDOM {
    constructor(html?: string);
    readonly window: unknown;
  }
  /**
   * `module.exports` of the CommonJS package: what both Node's import of it and the image
   * bundle's chunk (which has no named exports) answer as `default`.
   */
  const exports: { JSDOM: typeof JSDOM };
  export default exports;
}
