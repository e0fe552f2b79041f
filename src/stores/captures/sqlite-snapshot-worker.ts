/** Worker thread of snapshotSqlite (sqlite-snapshot.ts): one VACUUM INTO, then one reply. */
import { errorMessage } from '../../unknown';
import { vacuumInto } from './sqlite-snapshot';

declare const self: Worker;

self.onmessage = (event: MessageEvent<{ from: string; to: string }>) => {
  try {
    vacuumInto(event.data.from, event.data.to);
    self.postMessage({ ok: true });
  } catch (err) {
    self.postMessage({ ok: false, message: errorMessage(err) });
  }
};
