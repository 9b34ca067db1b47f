#!/usr/bin/env node
// `npm run gen:rooms`: rewrites the file list of every room's README.md (see scripts/rooms.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderRooms } from './rooms.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rooms = renderRooms(root);
for (const [file, text] of rooms) fs.writeFileSync(path.join(root, file), text);
console.log(`gen:rooms: ${rooms.size} rooms`);
