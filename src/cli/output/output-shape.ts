// The envelope of the JSON/YAML reports the CLI prints (scan, images, erase, check, version): a
// versioned apiVersion and a kind, as kubectl's own objects carry, so a script can check what it
// is reading. Each kind below has a JSON Schema in docs/schemas/<Kind>.json and is described in
// docs/output.md; a field is never renamed or removed within one apiVersion. (`inv node-remove
// -o json` prints the worker's report, whose shape the controller parses: not an envelope.)
export const CLI_API_VERSION = 'cli.imageinventory.dev/v1';

export type ReportKind = 'ScanReport' | 'ImageReport' | 'EraseReport' | 'CheckReport' | 'VersionReport';

export function reportDocument<K extends ReportKind, T extends object>(
  kind: K,
  body: T,
): { apiVersion: typeof CLI_API_VERSION; kind: K } & T {
  return { apiVersion: CLI_API_VERSION, kind, ...body };
}

/** `status.kinds`-style "Deployment,Pod" as the JSON array ["Deployment", "Pod"]. */
export const kindsArray = (kinds: string | undefined): string[] =>
  kinds ? kinds.split(',').filter(Boolean) : [];
