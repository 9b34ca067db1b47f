// ASCII character-class predicates for the reference scanners. Character codes instead of regular
// expressions keep every check an obvious single pass, which is the point of our own parser.

export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

export function isLower(c: number): boolean {
  return c >= 0x61 && c <= 0x7a;
}

export function isUpper(c: number): boolean {
  return c >= 0x41 && c <= 0x5a;
}

/** [a-z0-9]: the only characters a repository path component may contain besides separators. */
export function isAlnumLower(c: number): boolean {
  return isDigit(c) || isLower(c);
}

/** [a-zA-Z0-9]: registry host components allow uppercase. */
export function isAlnumAnyCase(c: number): boolean {
  return isAlnumLower(c) || isUpper(c);
}

/** [a-f0-9]: go-digest only accepts lowercase hex. */
export function isHexLower(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66);
}

/** [a-fA-F0-9]: what the reference grammar itself (and the IPv6 host) allows. */
export function isHexAnyCase(c: number): boolean {
  return isHexLower(c) || (c >= 0x41 && c <= 0x46);
}

/** \w in RE2: [0-9A-Za-z_]. */
export function isWordChar(c: number): boolean {
  return isAlnumAnyCase(c) || c === 0x5f;
}

export function isAll(s: string, pred: (c: number) => boolean): boolean {
  for (let i = 0; i < s.length; i++) if (!pred(s.charCodeAt(i))) return false;
  return true;
}
