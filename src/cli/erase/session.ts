// The standalone scaffold `inv erase`, `inv erase status` and `inv erase cancel` share: the
// cluster from connect() (the only way to one), --standalone's controllers started in this
// process when the command asks, and one ending for every path: errors as one line (a missing
// CRD named, the command's own errors as it maps them, anything else "<command> failed: ..."),
// then the controllers stopped and the connection closed.
import type { Command } from '@oclif/core';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeRest } from '../../core/kube/rest.js';
import type { KubeFlagValues } from '../flags.js';
import type { SourceKindSpec } from '../../core/inventory/source-kinds.js';
import { connect } from '../connect.js';
import { startStandalone } from './common.js';
import { exitIfCrdMissing, failLine } from '../process/fail.js';

/** A known error as the line (and exit code) to end with, or undefined for "not one of mine". */
export type ErrorLine = (e: unknown) => string | { line: string; exit: number } | undefined;

export class EraseSession {
  private readonly stop = new AbortController();
  private controllers?: Promise<void>;

  private constructor(
    readonly kc: KubeConfig,
    readonly rest: KubeRest,
  ) {}

  /** Connects (kubeconfig, context, request timeout); ends the command with one line when it cannot. */
  static open(cmd: Command, flags: KubeFlagValues): EraseSession {
    try {
      const { kc, rest } = connect(flags);
      return new EraseSession(kc, rest);
    } catch (e) {
      return failLine(cmd, (e as Error).message);
    }
  }

  /** The kubeconfig context, as prompts name it. */
  get context(): string {
    return this.kc.getCurrentContext() || '(in-cluster)';
  }

  /** --standalone: the erase controllers in this process (CRDs installed first) until the end. */
  async startControllers(
    namespace: string,
    configNamespace?: string,
    sourceKinds?: SourceKindSpec[],
  ): Promise<void> {
    this.controllers = (
      await startStandalone(this.kc, this.rest, namespace, this.stop.signal, configNamespace, sourceKinds)
    ).done;
  }

  /** Runs the command's body, then stops the controllers and closes the connection, whatever happened. */
  async run(cmd: Command, command: string, body: () => Promise<void>, known?: ErrorLine): Promise<void> {
    try {
      await body();
    } catch (e) {
      if (e instanceof Error && 'oclif' in e) throw e; // this.exit() and oclif's own errors
      exitIfCrdMissing(cmd, e);
      const mine = known?.(e);
      if (typeof mine === 'string') failLine(cmd, mine);
      if (mine) failLine(cmd, mine.line, mine.exit);
      failLine(cmd, `${command} failed: ${(e as Error).message}`);
    } finally {
      this.stop.abort();
      await this.controllers;
      this.rest.close();
    }
  }
}
