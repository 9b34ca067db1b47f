#!/usr/bin/env python3
# Runs a command on a real pseudo-terminal (python's pty module: no native Node addon) of a given
# size, answers what it prints with keystrokes, and reports what happened as JSON on stdout.
# Input (JSON on stdin): {"argv": [...], "env": {...}, "cwd": "...", "cols": 80, "rows": 24,
#   "steps": [{"wait": "<regex on the output, ANSI codes removed>", "send": "\u0003"}],
#   "timeoutMs": 60000}
# Output: {"output": "..." (each line as a terminal shows it: carriage returns, cursor-to-column
#   and erase-line codes applied, other ANSI codes removed), "raw": "...", "exitCode": n | null, "signal": n | null,
#   "stepsDone": k, "sentAtMs": [...], "exitedAtMs": t, "timedOut": bool}
import fcntl, json, os, pty, re, select, signal, struct, sys, termios, time

spec = json.load(sys.stdin)
cols, rows = spec.get("cols", 80), spec.get("rows", 24)
steps = spec.get("steps", [])
timeout = spec.get("timeoutMs", 60000) / 1000.0
ansi = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

pid, fd = pty.fork()
if pid == 0:
    # The child: the pty is its controlling terminal (stdin, stdout and stderr).
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    if spec.get("cwd"):
        os.chdir(spec["cwd"])
    os.execvpe(spec["argv"][0], spec["argv"], spec.get("env") or dict(os.environ))

start = time.monotonic()
raw = b""
step = 0
sent = []
status = None
timed_out = False
matched_from = 0
while True:
    now = time.monotonic()
    if now - start > timeout:
        timed_out = True
        os.kill(pid, signal.SIGKILL)
    try:
        r, _, _ = select.select([fd], [], [], 0.05)
    except InterruptedError:
        r = []
    if r:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        raw += chunk
    if step < len(steps):
        text = ansi.sub("", raw.decode("utf-8", "replace"))
        if re.search(steps[step]["wait"], text[matched_from:]):
            matched_from = len(text)
            os.write(fd, steps[step]["send"].encode())
            sent.append(int((time.monotonic() - start) * 1000))
            step += 1
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
        # Drain what is left on the terminal.
        while True:
            try:
                r, _, _ = select.select([fd], [], [], 0.1)
                if not r:
                    break
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                raw += chunk
            except OSError:
                break
        break

def shown(line):
    """What a terminal line shows: \r (and ESC[G) moves to column 0, ESC[2K (and ESC[K) erases."""
    buf, col, k = [], 0, 0
    while k < len(line):
        m = re.match(r"\x1b\[([0-9;?]*)([A-Za-z])", line[k:])
        if m:
            arg, cmd = m.group(1), m.group(2)
            if cmd == "G":
                col = max(0, int(arg or "1") - 1)
            elif cmd == "K":
                if arg == "2":
                    buf = []
                else:
                    del buf[col:]
            k += m.end()
            continue
        ch = line[k]
        k += 1
        if ch == "\r":
            col = 0
            continue
        while len(buf) < col:
            buf.append(" ")
        if col < len(buf):
            buf[col] = ch
        else:
            buf.append(ch)
        col += 1
    return "".join(buf).rstrip()


exited = int((time.monotonic() - start) * 1000)
out = raw.decode("utf-8", "replace")
json.dump(
    {
        # As the terminal shows it: a carriage return starts the line over (spinner frames).
        "output": "\n".join(shown(l) for l in out.replace("\r\n", "\n").split("\n")),
        "raw": out,
        "exitCode": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "stepsDone": step,
        "sentAtMs": sent,
        "exitedAtMs": exited,
        "timedOut": timed_out,
    },
    sys.stdout,
)
