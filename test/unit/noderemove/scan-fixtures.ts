// The shared fixture of the scan-mode unit tests (scan-answer, scan-results, scan-failures): an
// image ID made of one repeated character, so a test names an image by a letter and reads it back.
export const id = (c: string) => `sha256:${c.repeat(64)}`;
