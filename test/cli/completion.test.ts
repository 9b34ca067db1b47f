// `inv completion bash|zsh|fish` loaded by the real shells (zsh and fish when installed), asking
// the real `inv __complete` for commands, flags, -o values and names from the real API server
// (namespaces, ImageList and ImageJob names) and the kubeconfig (contexts); kubectl's own plugin
// completion through kubectl_complete-inv; and the deadline against a server that never answers.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { IMAGEJOBS_PATH, IMAGELISTS_PATH } from '../../src/core/erase/api/types.js';
import { adminConfig, kubeconfigPath } from '../support/kube.js';
import { createDryRunListAndJob } from '../support/erase-objects.js';
import { kubectlBin, repoRoot } from '../support/paths.js';
import { useNamespace } from '../support/suite-hooks.js';

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

describe('inv completion: scripts loaded by the shells, names from the cluster', function () {
  this.timeout(180_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-completion-'));
  // What `npm install -g` gives: inv, kubectl-inv and kubectl_complete-inv on the PATH.
  const binDir = path.join(tmp, 'bin');
  fs.mkdirSync(binDir);
  for (const [name, target] of [
    ['inv', 'run.js'],
    ['kubectl-inv', 'kubectl-inv'],
    ['kubectl_complete-inv', 'kubectl_complete-inv'],
  ])
    fs.symlinkSync(path.join(repoRoot, 'bin', target!), path.join(binDir, name!));
  let env: NodeJS.ProcessEnv;
  let ns: string;
  let list: string;
  let job: string;
  let context: string;

  const shell = (cmd: string, args: string[], input?: string) => {
    const r = spawnSync(cmd, args, { encoding: 'utf8', env, input, timeout: 60_000, cwd: tmp });
    assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  /** COMPREPLY for a bash command line (the cursor at its end), as bash fills COMP_* itself. */
  const bashComplete = (line: string): string[] => {
    const script = `
source <(inv completion bash)
complete -p inv >/dev/null || exit 3
COMP_LINE=${JSON.stringify(line)}
COMP_POINT=\${#COMP_LINE}
# Split as bash does for completion: at spaces and at COMP_WORDBREAKS' = and :.
read -ra COMP_WORDS <<< "$(sed -e 's/=/ = /g; s/:/ : /g' <<< "$COMP_LINE")"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
__inv_complete
printf '%s\\n' "\${COMPREPLY[@]}"`;
    return shell('bash', ['-c', script]).split('\n').filter(Boolean);
  };

  useNamespace('habits-compl', (n) => (ns = n));
  before(async () => {
    const rest = new KubeRest(adminConfig());
    await installCrds(rest);
    list = `complete-${ns.slice(-6)}`;
    job = `${list}-1-fghij`;
    await createDryRunListAndJob(rest, list, job);
    rest.close();
    context = adminConfig().getCurrentContext();
    env = {
      ...process.env,
      NO_COLOR: '1',
      HOME: tmp,
      KUBECONFIG: kubeconfigPath(),
      PATH: [binDir, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
    };
  });

  after(async () => {
    fs.rmSync(tmp, { recursive: true, force: true });
    const rest = new KubeRest(adminConfig());
    for (const p of [`${IMAGEJOBS_PATH}/${job}`, `${IMAGELISTS_PATH}/${list}`])
      await rest.request('DELETE', p).catch(() => undefined);
    rest.close();
  });

  it('bash: commands, flags, -o values, and namespaces, ImageLists, ImageJobs and contexts', () => {
    assert.deepEqual(bashComplete('inv sc'), ['scan']);
    assert.deepEqual(bashComplete('inv erase s'), ['status']);
    assert.ok(bashComplete('inv images --so').includes('--sort-by'));
    assert.deepEqual(bashComplete('inv scan -o custom'), ['custom-columns=', 'custom-columns-file=']);
    assert.deepEqual(bashComplete(`inv scan -n ${ns.slice(0, -2)}`), [ns]);
    // bash splits --namespace=value at "=": the candidates are what follows it.
    assert.deepEqual(bashComplete(`inv images --namespace=${ns.slice(0, -2)}`), [ns]);
    assert.deepEqual(bashComplete(`inv erase --name ${list.slice(0, -1)}`), [list]);
    assert.deepEqual(bashComplete(`inv erase status ${list}`), [job]);
    assert.deepEqual(bashComplete(`inv erase cancel ${job.slice(0, -3)}`), [job]);
    assert.deepEqual(bashComplete(`inv scan --context ${context.slice(0, 3)}`), [context]);
    // The connection flags on the line apply to the lookups, as kubectl's: a user who may not
    // list Namespaces is offered none.
    assert.deepEqual(bashComplete(`inv scan --as nobody -n ${ns.slice(0, -2)}`), []);
    assert.deepEqual(bashComplete(`inv scan --as nobody --as-group system:masters -n ${ns.slice(0, -2)}`), [
      ns,
    ]);
  });

  it('kubectl inv <TAB>: kubectl 1.26+ plugin completion through kubectl_complete-inv', () => {
    const kubectl = kubectlBin;
    const out = shell(kubectl, ['__complete', 'inv', 'scan', '-n', ns.slice(0, -2)]);
    assert.match(out, new RegExp(`^${ns}$`, 'm'));
    assert.match(out, /^:4$/m);
  });

  it('zsh (when installed) loads its script and completes names from the cluster', function () {
    if (!has('zsh')) this.skip();
    // Outside a completion widget: compdef and compadd stand in for the completion system's
    // builtins, so the script's own function runs as zsh runs it on TAB.
    const script = `
compdef() { :; }
compadd() { local name=\${@[-1]}; print -rl -- "\${(@P)name}"; }
_files() { print -r -- FILES; }
source <(inv completion zsh)
words=(inv scan -n ${ns.slice(0, -2)}); CURRENT=4; _inv
words=(inv erase status ''); CURRENT=4; _inv
words=(inv scan -f ''); CURRENT=4; _inv`;
    assert.deepEqual(shell('zsh', ['-fc', script]).split('\n').filter(Boolean), [ns, job, 'FILES']);
  });

  it('fish (when installed) loads its script and completes names from the cluster', function () {
    if (!has('fish')) this.skip();
    const out = shell('fish', [
      '--no-config',
      '-c',
      `inv completion fish | source; complete -C 'inv scan -n ${ns.slice(0, -2)}'; complete -C 'inv erase cancel ${job.slice(0, -2)}'`,
    ]);
    assert.deepEqual(out.split('\n').filter(Boolean), [ns, job]);
  });

  it('a server that never answers: no candidates within the deadline, never a hang', async () => {
    // A loopback server that accepts connections and says nothing.
    const sockets: net.Socket[] = [];
    const server = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const dead = path.join(tmp, 'silent.kubeconfig');
    fs.writeFileSync(
      dead,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}"}}]\n` +
        'contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {}}]\n',
    );
    try {
      const started = Date.now();
      const r = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
        const child = spawnAsync(['__complete', '--', 'scan', '--kubeconfig', dead, '-n', '']);
        let stdout = '';
        child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
        child.on('close', (status) => resolve({ status, stdout }));
      });
      const took = Date.now() - started;
      assert.equal(r.status, 0);
      assert.equal(r.stdout, ':4\n');
      assert.ok(sockets.length > 0, 'it did try the server');
      // The 2.5 s deadline plus Node's start-up on a busy machine.
      assert.ok(took < 15_000, `took ${took} ms`);
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });
});

function spawnAsync(args: string[]) {
  return spawn(process.execPath, [path.join(repoRoot, 'bin', 'run.js'), ...args], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
