// `inv erase --vulnerable` and its policy flags (scan mode): what a requester may choose. The
// scanner itself (image, settings) is the administrator's (inv-erase-config scanners).
import { Flags } from '@oclif/core';

export const scanFlags = {
  vulnerable: Flags.boolean({
    description:
      "Scan mode: remove only the unused images a scanner finds vulnerable (the administrator's scanners in inv-erase-config; the inventory's protection applies). Asks on a TTY unless --yes.",
    exclusive: ['images', 'imagelist', 'all-unused'],
    helpGroup: 'SCAN',
  }),
  severity: Flags.string({
    description:
      'With --vulnerable: severities that count, comma-separated (default CRITICAL,HIGH,MEDIUM,LOW).',
    helpGroup: 'SCAN',
  }),
  'ignore-unfixed': Flags.boolean({
    description: 'With --vulnerable: vulnerabilities without a fixed version do not count.',
    helpGroup: 'SCAN',
  }),
  scanner: Flags.string({
    description:
      "With --vulnerable: the scanner, by its name in the administrator's configuration (default trivy).",
    helpGroup: 'SCAN',
  }),
  'vuln-type': Flags.string({
    description: 'With --vulnerable: package types scanned, os and/or library (default both).',
    helpGroup: 'SCAN',
  }),
  'delete-failed-images': Flags.boolean({
    description: 'With --vulnerable: also remove images the scanner could not judge (default: kept).',
    helpGroup: 'SCAN',
  }),
  'delete-eol-images': Flags.boolean({
    description: 'With --vulnerable: also remove images whose operating system is end of life.',
    helpGroup: 'SCAN',
  }),
};
