// The flags of `inv node-scan` (its help lists them in this order), apart from the command so that
// what runs them (./node-scan-run.ts) is typed by them.
import { Flags } from '@oclif/core';
import {
  CRIO_STORE_IN_SCANNER,
  CRI_SOCKET_IN_SCANNER,
  DEFAULT_CONFIG_PATH,
  SHARED_DIR,
} from '../../core/contract/scanner-contract.js';

export const nodeScanFlags = {
  config: Flags.string({
    description: 'EraserConfig YAML whose components.scanner.config holds the Trivy settings.',
    default: DEFAULT_CONFIG_PATH,
  }),
  'shared-dir': Flags.string({
    description: 'The folder shared with the collector and remover.',
    default: SHARED_DIR,
  }),
  'cri-socket': Flags.string({
    description: "The node's CRI socket (containerd or CRI-O), as mounted in this container.",
    default: CRI_SOCKET_IN_SCANNER,
  }),
  'crio-store': Flags.string({
    description:
      "CRI-O nodes: the node's image store (containers/storage), as mounted read-only in this container.",
    default: CRIO_STORE_IN_SCANNER,
  }),
  trivy: Flags.string({ description: 'The Trivy binary.', default: '/trivy' }),
  'finish-timeout': Flags.string({
    description: "How long to wait for the remover's completion after answering.",
    default: '15m',
  }),
  // Eraser's controller passes these to every scanner; accepted so that an Eraser install can
  // run this scanner too. Ignored: inv serves no profiling port.
  // (Strings: Eraser writes --enable-pprof=false, which a boolean flag would refuse.)
  'enable-pprof': Flags.string({ hidden: true }),
  'pprof-port': Flags.string({ hidden: true }),
};
