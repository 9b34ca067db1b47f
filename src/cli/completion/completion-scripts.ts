// The shell scripts `inv completion bash|zsh|fish` prints. Each is a thin loop around
// `inv __complete -- WORDS... CURRENT` (src/commands/__complete.ts), which answers in cobra's
// format: candidates, one per line with an optional tab and description, then ":<directive>"
// (2: no space after the word, 4: no file completion). The program is called by the name the
// user typed (inv, a path to it, or kubectl-inv), so a checkout's bin/run.js completes itself.
// Candidates come from shared files (kubeconfig contexts) and the API server: each shell
// inserts every candidate as one literal word (bash: printf %q; zsh: compadd quotes; fish
// escapes completions itself), so `$(...)` in a name is text, never a command.

/** bash 4+ (and bash 3 on macOS): no bash-completion package needed. */
export function bashScript(bin: string): string {
  const fn = `__${bin.replace(/[^A-Za-z0-9_]/g, '_')}_complete`;
  return `# bash completion for ${bin}                          -*- shell-script -*-
# Load in this shell:   source <(${bin} completion bash)
# Load in every shell:  ${bin} completion bash > ~/.local/share/bash-completion/completions/${bin}
${fn}() {
    local cur="\${COMP_WORDS[COMP_CWORD]}"
    # bash splits words at = and : (COMP_WORDBREAKS); join them back as typed, so that
    # --namespace=ku and custom-columns=A:.b reach ${bin} as one word each.
    local -a words=()
    local line="\${COMP_LINE:0:COMP_POINT}" i w joined=0
    for ((i = 0; i <= COMP_CWORD; i++)); do
        w="\${COMP_WORDS[i]}"
        if [[ "$line" =~ ^[[:space:]]+ ]]; then
            line="\${line#"\${BASH_REMATCH[0]}"}"
            joined=0
        fi
        if ((i > 0 && joined)); then
            words[\${#words[@]}-1]+="$w"
        else
            words+=("$w")
        fi
        line="\${line#"$w"}"
        joined=1
    done
    local out
    out="$("\${words[0]}" __complete -- "\${words[@]:1}" 2>/dev/null)" || return 0
    local directive="\${out##*:}"
    [[ "$directive" =~ ^[0-9]+$ ]] || return 0
    out="\${out%:*}"
    local whole="\${words[\${#words[@]}-1]}"
    # bash replaces only what follows the last break character: drop what precedes it.
    local strip=""
    if [[ "$whole" != "$cur" && "$whole" == *"$cur" ]]; then strip="\${whole%"$cur"}"; fi
    COMPREPLY=()
    local c q
    while IFS= read -r c; do
        [[ -z "$c" ]] && continue
        c="\${c%%$'\\t'*}"
        # One literal word, whatever it holds: a context named prod$(cmd) is inserted as
        # prod\\$\\(cmd\\), never run when the line is.
        printf -v q '%q' "\${c#"$strip"}"
        COMPREPLY+=("$q")
    done <<< "$out"
    if ((directive & 2)); then compopt -o nospace 2>/dev/null; fi
    if ((\${#COMPREPLY[@]} == 0 && !(directive & 4))); then compopt -o default 2>/dev/null; fi
    return 0
}
complete -F ${fn} ${bin}
`;
}

/** zsh: loads with `source <(...)` after compinit, or from a file named _BIN on $fpath. */
export function zshScript(bin: string): string {
  const fn = `_${bin.replace(/[^A-Za-z0-9_]/g, '_')}`;
  return `#compdef ${bin}
# zsh completion for ${bin}
# Load in this shell:   source <(${bin} completion zsh)     (after compinit)
# Load in every shell:  ${bin} completion zsh > "\${fpath[1]}/_${bin}"
${fn}() {
    local -a args lines candidates descriptions
    local out directive line value
    args=("\${(@)words[2,CURRENT]}")
    out="$("\${words[1]}" __complete -- "\${(@)args}" 2>/dev/null)" || return 1
    lines=("\${(@f)out}")
    directive="\${lines[-1]#:}"
    [[ "$directive" == <-> ]] || return 1
    for line in "\${(@)lines[1,-2]}"; do
        [[ -z "$line" ]] && continue
        value="\${line%%$'\\t'*}"
        candidates+=("$value")
        if [[ "$line" == *$'\\t'* ]]; then
            descriptions+=("$value -- \${line#*$'\\t'}")
        else
            descriptions+=("$value")
        fi
    done
    if (( \${#candidates} )); then
        local -a suffix
        (( directive & 2 )) && suffix=(-S '')
        # Without -Q: zsh quotes what is special in each candidate, so it is one literal word.
        compadd "\${(@)suffix}" -d descriptions -a candidates
        return 0
    fi
    (( directive & 4 )) || _files
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
    ${fn} "$@"
else
    compdef ${fn} ${bin}
fi
`;
}

/** fish 3+. */
export function fishScript(bin: string): string {
  const fn = `__${bin.replace(/[^A-Za-z0-9_]/g, '_')}_complete`;
  return `# fish completion for ${bin}
# Load in this shell:   ${bin} completion fish | source
# Load in every shell:  ${bin} completion fish > ~/.config/fish/completions/${bin}.fish
function ${fn}
    set -l args (commandline -opc)
    set -l cur (commandline -ct)
    set -l prog $args[1]
    set -e args[1]
    set -l out ($prog __complete -- $args $cur 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    string match -qr '^[0-9]+$' -- $directive; or return
    set -e out[-1]
    if test (count $out) -eq 0
        if test (math "bitand($directive, 4)") -eq 0
            __fish_complete_path $cur
        end
        return
    end
    printf '%s\\n' $out
end
complete -c ${bin} -f -a '(${fn})'
`;
}
