// Bundle stand-in for whatwg-url: node-fetch (under client-node) uses Node's own URL when it
// exists (`Url.URL || whatwgUrl.URL`), which it always does on supported Node versions; this
// keeps tr46's 250 KB of Unicode tables out of the bundle.
export const URL = globalThis.URL;
export const URLSearchParams = globalThis.URLSearchParams;
export default { URL, URLSearchParams };
