// Bundle stand-in for @inquirer/prompts: @oclif/plugin-not-found asks only a yes/no question
// ("Did you mean …?", on a TTY); the other prompts (an editor prompt with its charset tables)
// stay out of the bundle.
export { default as confirm } from '@inquirer/confirm';
