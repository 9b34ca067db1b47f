// The per-file catalogue lives in each room: every folder of src/ that holds TypeScript has a
// README.md whose purpose is written by hand and whose file list is made from each file's
// opening comment (scripts/rooms.mjs). A new, moved or renamed file, or a changed opening
// comment, fails here until `npm run gen:rooms` is run; a room without a purpose fails too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../support/paths.js';

interface Rooms {
  BEGIN: string;
  roomDirs(root: string): string[];
  renderRooms(root: string): Map<string, string>;
  firstSentence(comment: string, max?: number): string;
}

const load = async () => (await import(path.join(repoRoot, 'scripts', 'rooms.mjs'))) as Rooms;

describe('rooms: every folder of src/ says what it holds', () => {
  it("a file's line is its comment's first sentence, not cut inside an ellipsis or mid-word", async () => {
    const { firstSentence } = await load();
    assert.equal(
      firstSentence('`inv x WORDS... CURRENT`: a command. More.'),
      '`inv x WORDS... CURRENT`: a command.',
    );
    assert.equal(firstSentence('What it does: a, b; c. Then more.'), 'What it does: a, b; c.');
    assert.equal(firstSentence(`One: ${'word '.repeat(20)}`, 40), 'One …');
  });

  it("each room's README.md lists its files as they are (npm run gen:rooms)", async () => {
    const { renderRooms } = await load();
    const stale: string[] = [];
    for (const [file, text] of renderRooms(repoRoot)) {
      const abs = path.join(repoRoot, file);
      if (!fs.existsSync(abs) || fs.readFileSync(abs, 'utf8') !== text) stale.push(file);
    }
    assert.deepEqual(stale, [], 'stale or missing room READMEs: npm run gen:rooms');
  });

  it("each room's README.md says what the room is for, above the generated list", async () => {
    const { BEGIN, roomDirs } = await load();
    const bare: string[] = [];
    for (const dir of roomDirs(repoRoot)) {
      const abs = path.join(repoRoot, dir, 'README.md');
      const text = fs.existsSync(abs) ? fs.readFileSync(abs, 'utf8') : '';
      const purpose = text
        .slice(0, Math.max(0, text.indexOf(BEGIN)))
        .replace(/^#.*$/m, '')
        .trim();
      if (purpose.length < 40) bare.push(dir);
    }
    assert.deepEqual(bare, [], 'rooms whose README.md does not say what they are for');
  });

  it('no README.md is left in a folder that holds no TypeScript', async () => {
    const { roomDirs } = await load();
    const rooms = new Set(roomDirs(repoRoot));
    const strays: string[] = [];
    const walk = (rel: string) => {
      for (const e of fs.readdirSync(path.join(repoRoot, rel), { withFileTypes: true })) {
        const p = path.posix.join(rel, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name === 'README.md' && !rooms.has(rel)) strays.push(p);
      }
    };
    walk('src');
    assert.deepEqual(strays, []);
  });
});
